"""Handing back the rest of a worker's group: what the grading process tells a worker in flight.

A worker grades its group one submission after another, so every submission behind a slow one
(a learner's endless loop spending its time limits) waits for it, even while another core sits
idle. The scheduler then takes the submissions the worker has not started and gives them to a
new worker; it tells the first one the index (in its group's order) of the last submission it is
still to grade. The worker reads that at each submission boundary, without waiting, and stops
there. The message only ever shrinks a group: the lowest index sent wins.

A worker can pass a boundary just before the message comes; it then grades a submission that
was handed on. That costs time, never a result: the scheduler takes no result of a submission it
handed on from the worker it took it from.

The wire is one decimal index and a newline per message, over a pipe from the trusted grading
process; each message is far shorter than ``PIPE_BUF``, so it is written and read whole.
"""

from __future__ import annotations

import contextlib
import os

# A message is one to this many ASCII digits and a newline (groups are far smaller). Anything
# else on the pipe (a longer line, a sign, a space) is ignored whole, and the worker grades on: a
# lost message costs time, never a result.
_MAX_DIGITS = 9


def send(fd: int, last: int) -> bool:
    """Tell the worker on ``fd`` to grade no submission after index ``last``. False when the
    message could not be written (the worker is gone, or its pipe is full): the worker then
    grades on, and what it grades past ``last`` is dropped."""
    try:
        return os.write(fd, f"{last}\n".encode()) > 0
    except OSError:  # BlockingIOError, BrokenPipeError: see above
        return False


class Handback:
    """The worker's end: the last index it is still to grade, as told so far."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._buffer = b""
        self._overlong = False  # the line being read is too long to be an index: skip it whole
        self._last: int | None = None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.set_blocking(fd, False)

    def last(self) -> int | None:
        """The lowest index sent so far, or None while nothing was handed back."""
        while self._fd is not None:
            try:
                chunk = os.read(self._fd, 4096)
            except BlockingIOError:
                break
            except OSError:
                self._fd = None
                break
            if not chunk:  # the grading process closed its end
                self._fd = None
                break
            *lines, self._buffer = (self._buffer + chunk).split(b"\n")
            for line in lines:
                if self._overlong:
                    self._overlong = False
                elif line.isdigit() and len(line) <= _MAX_DIGITS:  # bytes: ASCII digits only
                    value = int(line)
                    self._last = value if self._last is None else min(self._last, value)
            if len(self._buffer) > _MAX_DIGITS:
                self._buffer = b""
                self._overlong = True
        return self._last

    def stops_before(self, index: int) -> bool:
        """Whether the submission at ``index`` (in the group's order) was handed on."""
        last = self.last()
        return last is not None and index > last
