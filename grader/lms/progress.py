"""Progress of a batch on the instructor's terminal."""

from __future__ import annotations

import time
from typing import TextIO

from grader.console import control
from grader.results import Result, Status


class Progress:
    """A progress bar on a terminal; a plain line every few seconds otherwise."""

    def __init__(self, total: int, stream: TextIO, already: int = 0) -> None:
        self.total = total
        self.done = already
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.graded_now = 0
        self.errors = 0
        self._last = time.monotonic()  # a plain line every 5 s, and a last one at the end

    def advance(self, result: Result) -> None:
        self.done += 1
        self.graded_now += 1
        self.errors += result.status is Status.ERROR
        self.show()

    def _errors(self) -> str:
        """How many files could not run ("1 file could not run"); the end of the batch names
        each of them, with why, under "Needs a look"."""
        n = self.errors
        return f"{n} file{'s' if n != 1 else ''} could not run"

    def eta(self) -> str:
        if not self.graded_now:
            return "?"
        remaining = (time.monotonic() - self.started) / self.graded_now * (self.total - self.done)
        return f"{int(remaining // 60)}:{int(remaining % 60):02d}"

    def show(self, final: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            control(self.stream, "\r")  # the bar redraws its own line: the grader's control
            self.stream.write(
                f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"graded · {self._errors()} · ETA {self.eta()}   "
            )
            if final:
                self.stream.write("\n")
            self.stream.flush()
        elif final or now - self._last >= 5.0:
            self._last = now
            pct = 100 * self.done // max(self.total, 1)
            self.stream.write(
                f"graded {self.done}/{self.total} ({pct}%), {self._errors()}, ETA {self.eta()}\n"
            )
            self.stream.flush()
