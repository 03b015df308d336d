"""Exceptions raised by an exercise's own hidden tests, as its author needs to see them.

A ``NameError`` in ``tests.py`` makes every grading of the exercise fail the same way: the
reference, the starter, each mutant and alternative, on every device. Learners only read that
the grader could not finish (their Result carries no traceback); the trusted worker records the
traceback in the test's record (``TestRecord.fault``), and this module says each distinct one
once, with the gradings that met it, for ``grade validate`` and ``grade ID --debug``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from grader.engine.records import TestRecord


@dataclass
class TestsFault:
    """One exception of the hidden tests: the test, its traceback, and where it was met."""

    __test__ = False  # not a pytest test class

    test: str
    traceback: str
    met_by: list[str] = field(default_factory=list)  # the gradings, as the caller names them
    devices: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The fault as an author reads it: what met it, then the traceback, indented."""
        devices = ", ".join(self.devices)
        where = f"; on {devices}" if devices else ""
        body = "\n".join("    " + line for line in self.traceback.splitlines())
        return (
            f"{self.test} raised an exception in the hidden tests' own code (met by "
            f"{_summary(self.met_by)}{where}):\n{body}"
        )


def collect(gradings: Iterable[tuple[str, Sequence[TestRecord]]]) -> list[TestsFault]:
    """The distinct faults in ``gradings`` ((label, records) of each grading), in the order
    met: the same test with the same traceback is one fault however many gradings met it."""
    found: dict[tuple[str, str], TestsFault] = {}
    for label, records in gradings:
        for record in records:
            if not record.fault:
                continue
            fault = found.setdefault(
                (record.name, record.fault), TestsFault(record.name, record.fault)
            )
            if label not in fault.met_by:
                fault.met_by.append(label)
            device = record.device or "no device"
            if device not in fault.devices:
                fault.devices.append(device)
    return list(found.values())


def faulted(records: Sequence[TestRecord]) -> set[str]:
    """The keys (``name[device]``) of the tests whose fault has a traceback."""
    return {f"{r.name}[{r.device}]" if r.device else r.name for r in records if r.fault}


def _summary(labels: list[str]) -> str:
    """``the reference, the starter, 3 mutants, 2 alternatives``: kinds of three or fewer are
    named one by one."""
    kinds: dict[str, list[str]] = {}
    for label in labels:
        kind, _, name = label.partition(" ")
        kinds.setdefault(kind, []).append(name or kind)
    parts = []
    for kind, names in kinds.items():
        if len(names) > 3:
            parts.append(f"{len(names)} {kind}s")
        else:
            parts += [f"{kind} {n}" if n != kind else f"the {kind}" for n in names]
    return ", ".join(parts)
