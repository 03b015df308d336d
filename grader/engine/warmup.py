"""What the grading process imports once, before it forks anything.

A forked worker or learner child re-pays every import its parent did not do (PERFORMANCE.md), so
the grading process imports torch, NumPy and the sandbox's modules, forks the fork server, and
imports pytest's plugins and the grader's worker modules while the fork server tries out its
tier; then it freezes its heap so that every fork shares those pages. Where learner children
could not import pytest themselves, the worker side comes first, as they had it before.

torch._dynamo is not imported but stood in for (:mod:`grader.engine.dynamo`): meta-device ops,
optimizer steps and dispatch modes make torch import it (about half a second beyond what they
need anyway, most of it before today's cold ``grade ID`` could fork) for two calls that have
plain answers outside of tracing. What meta ops call next, the symbolic-shapes helpers and
``sympy.Basic`` (another third of a second of imports, sympy mostly), is stood in for too
(:mod:`grader.engine.symbolic`). Where learner children could not load the real modules on
demand (as root they run as a uid of their own, and a Python installation only root can read
is closed to them) they are imported for real, as before the stand-ins.

The heap is frozen, not collected first: whatever garbage the imports left is a few megabytes
kept for the process's life, and a full collection over everything torch and sympy allocated
costs a tenth of a second in every grading process.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import re
import stat
from pathlib import Path

from grader.engine import dynamo as dynamo_stand_in
from grader.engine import symbolic as symbolic_stand_in
from grader.spec import ExerciseSpec
from grader.text import source_text

# Where exercises need torch._dynamo (its stand-in) and sympy: an optimizer step, a dispatch
# mode (op counting, trace=True) or a meta-device op with a Python decomposition (arange).
_META_WORDS = re.compile(r"\boptim\b|\bmeta\b|trace=True")

# What the fork server and the learner children use.
_SANDBOX_MODULES = (
    "grader.sandbox.child",
    "grader.sandbox.codec",
    "grader.sandbox.faults",
    "grader.sandbox.forkserver",
    "grader.sandbox.messages",
    "grader.sandbox.pool",
    "grader.sandbox.protocol",
    "grader.sandbox.tiers.namespaces",
    "grader.sandbox.tiers.process",
)
# What only the trusted workers use.
_WORKER_MODULES = (
    "grader.engine.plugin",
    "grader.engine.records",
    "grader.engine.worker",
    "grader.testing",
)


def preloads(specs: list[ExerciseSpec]) -> dict[str, bool]:
    """What to prepare before forking for gradings of ``specs``: the stand-ins that meta-device
    ops need, and hypothesis (about a second), each only where some exercise will need it."""
    dynamo = hypothesis = False
    for spec in specs:
        dynamo = dynamo or any("meta" in spec.test_devices(t) for t in spec.tests)
        for path in (spec.test_path, spec.solution_path):
            try:
                text = source_text(path.read_bytes())  # as Python reads it: in its encoding
            except OSError:
                continue
            dynamo = dynamo or bool(_META_WORDS.search(text))
            hypothesis = hypothesis or (path == spec.test_path and "hypothesis" in text)
    return {"dynamo": dynamo, "hypothesis": hypothesis}


def import_common() -> None:
    """torch, NumPy and the sandbox's modules: what the fork server and every child need."""
    import numpy
    import numpy.random  # noqa: F401 - numpy imports it lazily, on first use in every child
    import torch
    import torch.nn.functional
    import torch.overrides
    import torch.utils._python_dispatch  # noqa: F401

    # What children import lazily in every grading: printing a tensor (through
    # _disable_current_modes) and an optimizer step (record_function's CUPTI monitor). A child
    # that cannot read the Python installation (as root, learner children run as a uid of their
    # own) could not, and the monitor's failed import is a warning in the learner's output.
    importlib.import_module("torch._subclasses.schema_check_mode")
    importlib.import_module("torch.profiler._cupti_monitor")
    for module in _SANDBOX_MODULES:
        importlib.import_module(module)


def import_worker_side() -> None:
    """pytest's plugins and the grader's worker modules: what every trusted worker needs."""
    from _pytest.config import default_plugins, essential_plugins

    from grader.engine.worker import _UNUSED_PLUGINS  # the worker turns these off: not needed

    for name in (*essential_plugins, *default_plugins):
        if name not in _UNUSED_PLUGINS:
            with contextlib.suppress(ImportError):
                importlib.import_module(f"_pytest.{name}")
    for module in _WORKER_MODULES:
        importlib.import_module(module)


def children_can_import() -> bool:
    """Whether learner children can still import torch's modules after the fork: the
    torch._dynamo stand-in, which loads the real module when learner code asks for more (a
    ``torch.func`` call), is used only where that load can succeed.

    Under another user than root they keep the grader's uid. As root they run as an
    unprivileged uid of their own, and what they can read is decided by the runtime's own
    permissions, never by the folders above it: the namespaces tier binds each runtime folder
    into a root of the child's own whose parents anyone may pass, and the process tier gives
    children that uid only where its trial proved they can reach the runtime through the
    host's folders (:func:`grader.sandbox.tiers.uids.uid_trial`), keeping root's otherwise. So
    a virtualenv inside a private home (0700) is as open to children as one anywhere else."""
    import torch

    return os.geteuid() != 0 or _open_to_others(Path(torch.__file__).resolve().parent)


def _open_to_others(folder: Path) -> bool:
    """Whether a uid other than the owner's can read ``folder`` and pass the folders between
    it and the runtime folder that holds it (the one a learner child is given: above it, the
    child's own root decides, see :func:`children_can_import`)."""
    from grader.sandbox.policy import runtime_paths

    # runtime_paths are the outermost folders: at most one holds ``folder``
    top = next(
        (Path(p) for p in runtime_paths() if folder == Path(p) or Path(p) in folder.parents),
        Path(folder.anchor),
    )
    try:
        for path in (folder, *folder.parents):
            if not path.stat().st_mode & stat.S_IXOTH:
                return False
            if path == top:
                break
        return bool(folder.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


def warm_up(dynamo: bool = False, hypothesis: bool = False) -> None:
    """Import everything a worker or a learner child will need, once, before any fork."""
    warm_sandbox_side(dynamo)
    warm_worker_side(hypothesis)


def worker_side_can_wait() -> bool:
    """Whether the worker side may be imported after the fork server is forked (it then tries
    out its tier, a trial run of 35-45 ms here, on the other core meanwhile). The learner children
    then lack pytest and hypothesis, as under plain ``python``, and import them if they ask:
    except where they could not read them (see :func:`children_can_import`), so there they are
    imported first, as before."""
    if os.geteuid() != 0:
        return True
    import _pytest

    runtime = Path(os.__file__).resolve().parent  # the standard library pytest imports from
    return children_can_import() and all(
        _open_to_others(p) for p in (runtime, Path(_pytest.__file__).resolve().parent)
    )


def warm_sandbox_side(dynamo: bool = False) -> None:
    """What the fork server and the learner children need, imported before it is forked."""
    import_common()
    if dynamo:
        if children_can_import():
            # what meta ops import for answers that are plain outside tracing: stand-ins
            dynamo_stand_in.install()
            symbolic_stand_in.install()
        else:  # a child could never load the real modules on demand (torch.func): load them now
            importlib.import_module("torch._dynamo")
            importlib.import_module("torch.fx.experimental.symbolic_shapes")
    # Objects that exist now live as long as the process: freezing them keeps every fork's
    # copy-on-write pages shared and makes pytest's gc.collect() in each worker cheap.
    gc.freeze()


def warm_worker_side(hypothesis: bool = False) -> None:
    """What every trusted worker needs, imported before the first worker is forked."""
    import_worker_side()
    if hypothesis:
        importlib.import_module("grader.testing.properties")
    gc.freeze()
