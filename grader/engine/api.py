"""The engine's one interface: a grading request goes in, a :class:`~grader.results.Result`
comes out.

Every front end speaks it: ``grade ID``, ``grade watch``, ``grade batch``, ``grade validate``,
the warm server and the notebook magics, and the cluster workers. A request is plain data (the
learner's source as bytes, not a path on one machine), so it can cross a socket or a cluster
unchanged: ``to_wire``/``from_wire`` give its JSON form, strictly checked.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from grader import wire
from grader.i18n import LANGS
from grader.notebooks import CellMap
from grader.results import Result
from grader.text import shown
from grader.wire import WireError

DEFAULT_SEED = 20261129
DEVICES = ("cpu", "cuda")
MAX_SOURCE_BYTES = 4 << 20  # a learner's file: more than any exercise needs, little enough to read


class RequestError(WireError):
    """A grading request is not well formed."""


@dataclass(frozen=True)
class GradeRequest:
    """One grading: the learner's file for one exercise, on some devices.

    ``filename`` is how the caller names the submission (the path as the learner typed it, or
    ``student/exercise-07.py`` in a batch); the result shows it and nothing else of where the
    file came from. ``tag`` is the caller's own label, handed back untouched. ``cells``: for a
    notebook, where each line of ``source`` (its joined code cells) is in the notebook, so that
    every message names "cell 3, line 2" rather than a line of a file the learner never saw;
    the Result carries it on.
    """

    exercise: str
    source: bytes
    filename: str
    devices: tuple[str, ...] = DEVICES
    seed: int = DEFAULT_SEED
    lang: str = "en"
    tag: str = ""
    cells: CellMap | None = None

    def __post_init__(self) -> None:
        # the name is shown in results, reports and terminals: decoded once, here (a path's
        # undecodable bytes become U+FFFD: the name is never used to open a file)
        object.__setattr__(self, "filename", shown(self.filename))
        if not self.devices or any(d not in DEVICES for d in self.devices):
            raise RequestError(f"devices must be some of {', '.join(DEVICES)}")
        if len(set(self.devices)) != len(self.devices):
            raise RequestError("a device is listed twice")
        if self.lang not in LANGS:
            raise RequestError(f"lang must be one of {', '.join(LANGS)}")
        if len(self.source) > MAX_SOURCE_BYTES:
            raise RequestError(f"the source is larger than {MAX_SOURCE_BYTES >> 20} MiB")

    def to_wire(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "source": base64.b64encode(self.source).decode("ascii"),
            "filename": self.filename,
            "devices": list(self.devices),
            "seed": self.seed,
            "lang": self.lang,
            "tag": self.tag,
            "cells": self.cells.to_dict() if self.cells is not None else None,
        }

    @classmethod
    def from_wire(cls, data: Any) -> GradeRequest:
        """Strict: exactly the fields :meth:`to_wire` writes, each of its type and bounds;
        else a :class:`RequestError` naming the field."""
        with wire.reading(RequestError):
            f = wire.Fields(data, "request", required=_REQUEST_FIELDS)
            encoded = f.string("source", max_len=(MAX_SOURCE_BYTES // 3 + 1) * 4)
            try:
                source = base64.b64decode(encoded, validate=True)
            except (binascii.Error, ValueError):
                wire.fail(f.name("source"), "source must be base64")
            cells = f.raw("cells")
            return cls(
                exercise=f.string("exercise", max_len=200),
                source=source,
                filename=f.string("filename", max_len=4096),
                devices=f.strings("devices", max_items=len(DEVICES), max_len=20),
                seed=f.integer("seed", low=-(2**63), high=2**64 - 1),
                lang=f.string("lang", choices=LANGS),
                tag=f.string("tag", max_len=200),
                cells=None if cells is None else CellMap.from_dict(cells, f.name("cells")),
            )


_REQUEST_FIELDS = ("exercise", "source", "filename", "devices", "seed", "lang", "tag", "cells")


# on_result(index, result, report): report is the result's HTML report when it was asked for
OnResult = Callable[[int, Result, "str | None"], None]


class Engine(Protocol):
    """Grades requests. ``grade_many`` calls ``on_result(index, result, report)`` as each
    completes (so a caller can store results as they come) and returns them in request order.
    With ``reports=True`` each ``report`` is the result's HTML report, rendered where the
    grading ran (on a cluster: on the worker, so the driver only writes files); else None."""

    def grade(self, request: GradeRequest) -> Result: ...

    def grade_many(
        self,
        requests: Sequence[GradeRequest],
        on_result: OnResult | None = None,
        *,
        reports: bool = False,
    ) -> list[Result]: ...
