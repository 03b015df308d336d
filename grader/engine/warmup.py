"""What the grading process imports once, before it forks anything.

A forked worker or learner child re-pays every import its parent did not do (PERFORMANCE.md), so
the grading process imports torch, NumPy, pytest's plugins and the grader's own worker- and
learner-side modules first, then freezes its heap so that every fork shares those pages.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import re

from grader.spec import ExerciseSpec

# torch imports torch._dynamo (about 1 s) the first time a process steps an optimizer, traces
# with a dispatch mode (op counting), or runs a meta-device op that has a Python decomposition
# (torch.arange). Imported once here before forking, it costs neither the trusted worker nor any
# learner child, and never shows up as test time.
_DYNAMO_WORDS = re.compile(r"\boptim\b|\bmeta\b|trace=True")

_MODULES = (
    "grader.sandbox.child",
    "grader.sandbox.codec",
    "grader.sandbox.faults",
    "grader.sandbox.forkserver",
    "grader.sandbox.messages",
    "grader.sandbox.pool",
    "grader.sandbox.protocol",
    "grader.sandbox.tiers.namespaces",
    "grader.sandbox.tiers.process",
    "grader.engine.plugin",
    "grader.engine.records",
    "grader.engine.worker",
    "grader.testing",
)


def preloads(specs: list[ExerciseSpec]) -> dict[str, bool]:
    """What to import before forking for gradings of ``specs``: torch._dynamo (see above) and
    hypothesis, each only where some exercise will need it (each costs about a second)."""
    dynamo = hypothesis = False
    for spec in specs:
        dynamo = dynamo or any("meta" in spec.test_devices(t) for t in spec.tests)
        for path in (spec.test_path, spec.solution_path):
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                continue
            dynamo = dynamo or bool(_DYNAMO_WORDS.search(text))
            hypothesis = hypothesis or (path == spec.test_path and "hypothesis" in text)
    return {"dynamo": dynamo, "hypothesis": hypothesis}


def warm_up(dynamo: bool = False, hypothesis: bool = False) -> None:
    """Import everything a worker or a learner child will need, once, before any fork."""
    import numpy
    import numpy.random  # noqa: F401 - numpy imports it lazily, on first use in every child
    import torch
    import torch.nn.functional
    import torch.overrides
    import torch.utils._python_dispatch  # noqa: F401
    from _pytest.config import default_plugins, essential_plugins

    for name in (*essential_plugins, *default_plugins):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"_pytest.{name}")
    for module in _MODULES:
        importlib.import_module(module)
    if dynamo:
        importlib.import_module("torch._dynamo")  # imports only: no CUDA, no threads
    if hypothesis:
        importlib.import_module("grader.testing.properties")
    # Objects that exist now live as long as the process: freezing them keeps every fork's
    # copy-on-write pages shared and makes pytest's gc.collect() in each worker cheap.
    gc.collect()
    gc.freeze()
