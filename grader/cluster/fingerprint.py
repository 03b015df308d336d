"""What must be identical on the driver and on every worker for a cluster to give the same
gradebook as one machine: the grader (version and code), Python, torch, every exercise's files
(spec, hidden tests, reference) and the course's own diagnoses.yaml, which decides the feedback
of every exercise. The isolation tier is reported too: cluster mode
requires the namespaces tier on every worker (``docs/CLUSTER.md``, "Security").

A fingerprint is plain JSON data (a slot sends it in its hello line). :func:`refusal` compares
a worker's with the driver's and says, in words, which part differs.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from typing import Any

from grader.course import DIAGNOSES
from grader.digests import code_digest, digest, exercise_fingerprint
from grader.spec import ExerciseSpec
from grader.version import __version__

REQUIRED_TIER = "namespaces"


def fingerprint(specs: Sequence[ExerciseSpec], isolation: str = "") -> dict[str, Any]:
    """This process's fingerprint for grading ``specs``. ``isolation``: the tier's name
    (``namespaces`` or ``process``), known only where a fork server runs."""
    import torch

    return {
        "grader": __version__,
        "code": code_digest(),
        "python": platform.python_version(),
        "torch": str(torch.__version__),
        "exercises": {spec.id: exercise_fingerprint(spec) for spec in specs},
        "diagnoses": course_diagnoses(specs),
        "isolation": isolation,
    }


def course_diagnoses(specs: Sequence[ExerciseSpec]) -> str:
    """A digest of the diagnoses.yaml of the course ``specs`` belong to ("" without one)."""
    roots = sorted({spec.course_root for spec in specs})
    files = [root / DIAGNOSES for root in roots if (root / DIAGNOSES).is_file()]
    return digest(*(part for f in files for part in (str(f.name), f.read_bytes()))) if files else ""


def differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """The parts of ``theirs`` that differ from ``ours``, in words ("torch 2.3.0 there,
    2.4.1 here"); the isolation tier is not compared here (see :func:`refusal`)."""
    found = []
    for part, what in (("grader", "torch-grader"), ("python", "Python"), ("torch", "torch")):
        if theirs.get(part) != ours.get(part):
            found.append(f"{what} {theirs.get(part)} there, {ours.get(part)} here")
    if theirs.get("code") != ours.get("code") and theirs.get("grader") == ours.get("grader"):
        found.append("the grader's code (same version, different files)")
    if theirs.get("diagnoses", "") != ours.get("diagnoses", ""):
        found.append("the course's diagnoses.yaml")
    mine = ours.get("exercises") or {}
    other = theirs.get("exercises")
    other = other if isinstance(other, dict) else {}
    for exercise in sorted(mine):
        if exercise not in other:
            found.append(f"{exercise} is missing there")
        elif other[exercise] != mine[exercise]:
            found.append(f"{exercise}'s files (spec, hidden tests or reference)")
    return found


def refusal(worker: str, ours: dict[str, Any], theirs: dict[str, Any], detail: str = "") -> str:
    """Why ``worker`` may not grade for this driver, or "" when it may. ``detail``: the
    worker's own description of its isolation."""
    reasons = differences(ours, theirs)
    if theirs.get("isolation") != REQUIRED_TIER:
        tier = detail or theirs.get("isolation") or "unknown"
        reasons.append(
            f"it grades in the isolation tier '{tier}', and cluster mode needs '{REQUIRED_TIER}'"
        )
    if not reasons:
        return ""
    return f"worker {worker} refused: " + "; ".join(reasons)
