"""CSV that a spreadsheet opens as text: no cell runs as a formula.

Every CSV the grader writes (gradebook, Canvas, Moodle) goes through :func:`writer`. A cell a
spreadsheet would evaluate (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return: a student named ``=HYPERLINK(...)``, a file called ``@SUM(A1)``) gets a leading ``'``,
as OWASP recommends for CSV injection; plain numbers (``-1.5``) stay numbers. Every text cell
is inert and on one line (:func:`grader.text.inert_line`): no control code, no lone surrogate.

The identity columns of a file an LMS imports (Moodle's e-mail and ID number, its worksheet's
participant, Canvas's ids) are the exception: the LMS matches them exactly, so a ``'`` before
``-jane@uni.edu`` (a legal address) made the import match no one and leave that grade out.
Those columns are written as the roster or the download gave them (``verbatim``); the LMS or
the instructor's roster chose them, not a learner.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Iterable
from typing import Any

from grader.text import inert_line

_RISKY = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")


def cell(value: Any) -> Any:
    """A value as it is safe to write: strings that a spreadsheet would run are quoted."""
    if isinstance(value, str) and value.startswith(_RISKY) and not _NUMBER.match(value):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose rows are made safe cell by cell, but for the ``verbatim`` columns
    (their indices)."""

    def __init__(self, out: io.StringIO, verbatim: Collection[int] = ()) -> None:
        self._writer = csv.writer(out, lineterminator="\n")
        self._verbatim = frozenset(verbatim)

    def writerow(self, row: Iterable[Any]) -> None:
        """Every text cell inert, on one line (:func:`grader.text.inert_line`): a cell quotes
        file and archive member names, where an ESC or a BEL reached the gradebook raw. The
        ids an LMS matches contain no control code, so making them inert changes none."""
        texts = [inert_line(v) if isinstance(v, str) else v for v in row]
        self._writer.writerow([v if n in self._verbatim else cell(v) for n, v in enumerate(texts)])


def writer(out: io.StringIO, verbatim: Collection[int] = ()) -> SafeWriter:
    return SafeWriter(out, verbatim)
