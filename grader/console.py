"""The terminal: every write to it is made inert, in one place.

What ``grade`` prints carries text from outside: a student's file or folder name, a learner's
exception message and printed output, a name in a roster, a notebook's cell. A control code in
any of it reaches the user's terminal, where it can clear the screen, move the cursor, rewrite a
line or hide one (a file name that clears the instructor's screen during ``grade batch`` and
prints a fake "nothing needs a look"). Escaping it at each place that prints is a list that is
never complete; so the CLI writes only through :class:`InertStream`, which escapes every control
code in every write (:func:`grader.text.inert`: C0 and C1 controls but newline and tab, DEL,
bidirectional overrides, undecodable bytes), in every command and both languages.

The grader's own controls pass in two ways only: colour, as the few SGR sequences the terminal
summary uses, and only on a stream that is in colour (a colour code does nothing but colour);
and cursor control (the progress bar's carriage return, ``grade watch`` clearing the screen)
through :func:`control`, which is never given outside text.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from grader.text import inert

# the SGR codes grader.render.terminal writes: reset, bold, dim, green, red, yellow, magenta, cyan
_OWN_COLOURS = re.compile(r"\x1b\[(?:0|1|2|31|32|33|35|36|1;3[1-6])m")
_SPLIT = re.compile(f"({_OWN_COLOURS.pattern})")


class InertStream:
    """A text stream that writes everything inert (see the module's docstring). Anything
    else (``flush``, ``isatty``, ``fileno``, ``encoding``) is the wrapped stream's."""

    def __init__(self, stream: TextIO, *, colour: bool = False) -> None:
        self.wrapped = stream
        self.colour = colour

    def write(self, text: str) -> int:
        if self.colour and "\x1b" in text:
            parts = _SPLIT.split(text)  # odd items: the grader's own colour codes
            shown = "".join(p if i % 2 else inert(p) for i, p in enumerate(parts))
        else:
            shown = inert(text)
        self.wrapped.write(shown)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def control(self, sequence: str) -> None:
        """Write the grader's own cursor control (never text from outside)."""
        self.wrapped.write(sequence)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def control(stream: Any, sequence: str) -> None:
    """Write a cursor control of the grader's own (``\\r``, clearing the screen) to ``stream``,
    past the escaping of an :class:`InertStream`."""
    if isinstance(stream, InertStream):
        stream.control(sequence)
    else:
        stream.write(sequence)


def use_colour(stream: Any) -> bool:
    """Whether to colour what goes to ``stream``: NO_COLOR and FORCE_COLOR decide, else
    whether it is a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and bool(stream.isatty())


@contextlib.contextmanager
def inert_terminal() -> Iterator[None]:
    """Within: ``sys.stdout`` and ``sys.stderr`` are :class:`InertStream` s (the CLI runs every
    command so). Characters a stream cannot encode are written as escapes, never an error."""
    saved = sys.stdout, sys.stderr
    for stream in saved:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")
    sys.stdout = InertStream(saved[0], colour=use_colour(saved[0]))
    sys.stderr = InertStream(saved[1], colour=use_colour(saved[1]))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
