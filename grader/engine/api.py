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

from grader.i18n import LANGS
from grader.notebooks import CellMap
from grader.results import Result

DEFAULT_SEED = 20261129
DEVICES = ("cpu", "cuda")
MAX_SOURCE_BYTES = 4 << 20  # a learner's file: more than any exercise needs, little enough to read


class RequestError(ValueError):
    """A grading request is not well formed."""


@dataclass(frozen=True)
class GradeRequest:
    """One grading: the learner's file for one exercise, on some devices.

    ``filename`` is how the caller names the submission (the path as the learner typed it, or
    ``student/exercise-07.py`` in a batch); the result shows it and nothing else of where the
    file came from. ``cells``: for a notebook, where each line of ``source`` (its joined code
    cells) is in the notebook, so that every message names "cell 3, line 2" rather than a line
    of a file the learner never saw; the Result carries it on. Every field decides the result:
    a caller keeps its own labels (a batch's task, a cluster's job key) beside the request.
    """

    exercise: str
    source: bytes
    filename: str
    devices: tuple[str, ...] = DEVICES
    seed: int = DEFAULT_SEED
    lang: str = "en"
    cells: CellMap | None = None

    def __post_init__(self) -> None:
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
            "cells": self.cells.to_dict() if self.cells is not None else None,
        }

    @classmethod
    def from_wire(cls, data: Any) -> GradeRequest:
        keys = ("exercise", "source", "filename", "devices", "seed", "lang", "cells")
        if type(data) is not dict or set(data) != set(keys):
            raise RequestError(f"a request has exactly the fields {', '.join(keys)}")
        for key in ("exercise", "source", "filename", "lang"):
            if type(data[key]) is not str:
                raise RequestError(f"{key} must be a string")
        if type(data["seed"]) is not int:
            raise RequestError("seed must be a whole number")
        if type(data["devices"]) is not list or not all(type(d) is str for d in data["devices"]):
            raise RequestError("devices must be a list of device names")
        try:
            source = base64.b64decode(data["source"], validate=True)
        except (binascii.Error, ValueError):
            raise RequestError("source must be base64") from None
        try:
            cells = CellMap.from_dict(data["cells"]) if data["cells"] is not None else None
        except ValueError as exc:
            raise RequestError(f"cells: {exc}") from None
        return cls(
            exercise=data["exercise"],
            source=source,
            filename=data["filename"],
            devices=tuple(data["devices"]),
            seed=data["seed"],
            lang=data["lang"],
            cells=cells,
        )


# on_result(index, result, report): report is the result's HTML report when the engine rendered
# it where the grading ran (a cluster's workers), else None: the caller renders it
OnResult = Callable[[int, Result, "str | None"], None]


class Engine(Protocol):
    """Grades requests. ``grade_many`` calls ``on_result(index, result, report)`` as each
    completes (so a caller can store results as they come) and returns them in request order.
    The engine renders nothing of its own: ``report`` is None, unless the engine was made to
    render reports where the grading runs (a cluster's workers, so the driver only writes
    files)."""

    def grade(self, request: GradeRequest) -> Result: ...

    def grade_many(
        self,
        requests: Sequence[GradeRequest],
        on_result: OnResult | None = None,
    ) -> list[Result]: ...
