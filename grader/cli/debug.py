"""``--debug`` on ``grade ID``, ``grade watch ID`` and ``grade preview ID``: the hidden tests'
own exceptions, with their tracebacks, for the exercise's author.

The learner-facing summary stays as it is (a learner reads only that the grader could not
finish a test); the tracebacks come from the engine's records (``LocalEngine(debug=True)``),
never from the Result, and go to stderr after the summary.
"""

from __future__ import annotations

import sys
from typing import TextIO

from grader.authoring.faults import collect
from grader.engine import LocalEngine


def show_faults(engine: LocalEngine, label: str, stream: TextIO | None = None) -> int:
    """Print each distinct fault of the engine's last grading (request 0); how many."""
    if not engine.debug:
        return 0
    found = collect([(label, engine.records(0))])
    stream = stream or sys.stderr
    if found:
        print(
            "\nExceptions in the hidden tests' own code (for the exercise's author; learners "
            "see only that the grader could not finish these tests):",
            file=stream,
        )
        for fault in found:
            print(fault.describe(), file=stream)
    return len(found)
