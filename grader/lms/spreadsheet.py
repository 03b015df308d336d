"""CSV that a spreadsheet opens as text: no cell runs as a formula.

Every CSV the grader writes (gradebook, Canvas, Moodle) goes through :func:`writer`. A cell a
spreadsheet would evaluate (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return: a student named ``=HYPERLINK(...)``, a file called ``@SUM(A1)``) gets a leading ``'``,
as OWASP recommends for CSV injection; plain numbers (``-1.5``) stay numbers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

_RISKY = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def cell(value: Any) -> Any:
    """A value as it is safe to write: strings that a spreadsheet would run are quoted."""
    if isinstance(value, str) and value.startswith(_RISKY) and not _NUMBER.match(value):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose rows are made safe cell by cell."""

    def __init__(self, out: io.StringIO) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([cell(v) for v in row])


def writer(out: io.StringIO) -> SafeWriter:
    return SafeWriter(out)
