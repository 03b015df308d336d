"""How the number of tensor operations of traced calls may grow with the input sizes.

The calls are keyed by labels (``"n=4, d=3"``) with their numeric sizes (``{"n": 4, "d": 3}``).
For each size parameter, the calls that differ only in it are compared:

* ``constant`` (the default): they must all perform the same number of operations;
* ``logarithmic``: the count may grow at most like ``c * log2(size) + b``, with ``c`` and
  ``b`` fitted on the two smallest sizes, plus one more step of ``c`` and two operations of
  slack (a loop that runs ``ceil(log2(n))`` times rounds up). A correct Hillis-Steele scan adds
  the same number of operations each time ``n`` doubles; a Python loop over ``n`` multiplies
  them.

Picking sizes. For ``constant``, two sizes are enough (today's ``n=4`` and ``n=64``). For
``logarithmic``, give at least three sizes of that parameter, powers of two, each at least 16
times the previous (``4, 64, 1024``): a doubling loop then adds 4 steps between each pair, while
a loop over the elements makes 16 times as many operations, far above the fitted line (about
1.6 times). Sizes less than 4 times apart (4, 8, 16) cannot tell the two apart and are refused.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

GROWTHS = ("constant", "logarithmic")
_LABEL_PART = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?\d+)\s*$")
MIN_LOG_RATIO = 4


@dataclass(frozen=True)
class Excess:
    """Calls whose operation counts grow faster than allowed in ``parameter``."""

    parameter: str
    growth: str
    labels: tuple[str, ...]  # the calls compared, smallest size first
    counts: tuple[int, ...]
    allowed: dict[str, float]  # label -> the largest count allowed (logarithmic only)


def parse_label(label: str) -> dict[str, int]:
    """``"n=4, d=3"`` as ``{"n": 4, "d": 3}``."""
    sizes = {}
    for part in label.split(","):
        match = _LABEL_PART.match(part)
        if not match:
            raise ValueError(
                f"cannot read sizes from the label {label!r}: write it as 'n=4, d=3' or pass "
                "the sizes"
            )
        sizes[match.group(1)] = int(match.group(2))
    return sizes


def growth_of(growth: str | Mapping[str, str], parameter: str) -> str:
    value = growth if isinstance(growth, str) else growth.get(parameter, "constant")
    if value not in GROWTHS:
        raise ValueError(f"growth must be one of {GROWTHS}, not {value!r}")
    return value


def excesses(
    counts: Mapping[str, int],
    sizes: Mapping[str, Mapping[str, int]],
    growth: str | Mapping[str, str] = "constant",
) -> list[Excess]:
    """Where ``counts`` (label -> operations) grow faster than ``growth`` allows."""
    labels = list(counts)
    if set(labels) != set(sizes):
        raise ValueError("every traced call needs its sizes, and every size its call")
    parameters = sorted({p for label in labels for p in sizes[label]})
    for label in labels:
        if set(sizes[label]) != set(parameters):
            raise ValueError(
                f"the call {label!r} gives sizes for {sorted(sizes[label])}, the others for "
                f"{parameters}: give every call the same size parameters"
            )
    if not isinstance(growth, str):
        unknown = set(growth) - set(parameters)
        if unknown:
            raise ValueError(f"growth names unknown size parameters: {sorted(unknown)}")
    found = []
    for parameter in parameters:
        kind = growth_of(growth, parameter)
        groups: dict[tuple, list[str]] = {}
        for label in labels:
            rest = tuple((p, sizes[label][p]) for p in parameters if p != parameter)
            groups.setdefault(rest, []).append(label)
        for group in groups.values():
            group.sort(key=lambda label: sizes[label][parameter])
            if kind == "constant":  # the same count everywhere, repeated sizes included
                if len({counts[label] for label in group}) > 1:
                    found.append(_excess(parameter, kind, group, counts, {}))
                continue
            if len({sizes[label][parameter] for label in group}) < 2:
                continue
            allowed = _logarithmic(parameter, group, counts, sizes)
            if any(counts[label] > allowed[label] for label in allowed):
                found.append(_excess(parameter, kind, group, counts, allowed))
    return found


def _excess(parameter, kind, group, counts, allowed) -> Excess:
    return Excess(parameter, kind, tuple(group), tuple(counts[label] for label in group), allowed)


def _logarithmic(parameter, group, counts, sizes) -> dict[str, float]:
    values = sorted({sizes[label][parameter] for label in group})
    if len(values) < 3:
        raise ValueError(
            f"logarithmic growth in {parameter} needs at least three sizes of {parameter} "
            f"(got {values}); use powers of two spread apart, e.g. 4, 64, 1024"
        )
    if values[0] < 1:
        raise ValueError(f"sizes of {parameter} must be at least 1 for logarithmic growth")
    for small, big in itertools.pairwise(values):
        if big < small * MIN_LOG_RATIO:
            raise ValueError(
                f"sizes of {parameter} too close together to tell a logarithmic from a linear "
                f"growth ({small} and {big}): make each at least {MIN_LOG_RATIO} times the "
                "previous, e.g. 4, 64, 1024"
            )

    def count_at(size: int) -> float:
        return max(counts[label] for label in group if sizes[label][parameter] == size)

    x1, x2 = math.log2(values[0]), math.log2(values[1])
    y1, y2 = count_at(values[0]), count_at(values[1])
    slope = (y2 - y1) / (x2 - x1)
    allowed = {}
    for label in group:
        size = sizes[label][parameter]
        if size <= values[1]:
            continue
        x = math.log2(size)
        if slope <= 0:
            allowed[label] = max(y1, y2) + 2
        else:
            allowed[label] = y2 + slope * (x - x2) + slope + 2
    return allowed
