"""Meta tensors stand in for a GPU: in a call on meta, an operation that mixes meta tensors with
CPU tensors raises as on a GPU (grader.sandbox.child._OneDevice), where PyTorch's meta kernels
let many of them through (a matmul, add_, gather, scatter_, indexing a CPU tensor with meta
indices): a model left on the CPU or a one-hot built on the CPU passed the meta case on a machine
without a GPU. What a GPU allows stays allowed: 0-d CPU tensors, copies, CPU indices into a meta
tensor."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox.child import _OneDevice
from tests.conftest import run_fresh

SAME_DEVICE = "Expected all tensors to be on the same device"


def _make(kind: str) -> torch.Tensor:
    """An operand of shape (3, 3): on meta, on the CPU, or a CPU scalar (0-d)."""
    if kind == "cpu0":
        return torch.tensor(2.0)
    return torch.ones(3, 3, device="meta" if kind == "meta" else "cpu")


def _index(kind: str) -> torch.Tensor:
    return torch.zeros(3, 1, dtype=torch.long, device="meta" if kind == "meta" else "cpu")


ELEMENTWISE = {
    "add": torch.add,
    "mul": torch.mul,
    "sub": torch.sub,
    "maximum": lambda a, b: torch.maximum(a, b) if a.dim() and b.dim() else torch.add(a, b),
    "add_": lambda a, b: a.clone().add_(b) if a.dim() else torch.add(a, b),
    "matmul": lambda a, b: a @ b if a.dim() and b.dim() else torch.mul(a, b),
}
kinds = st.sampled_from(["meta", "cpuN", "cpu0"])


def _outcome(run) -> str:
    try:
        with _OneDevice():
            run()
    except RuntimeError as exc:
        if SAME_DEVICE in str(exc):
            return "refused"
        raise
    return "ran"


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(ELEMENTWISE)), kinds, kinds)
def test_an_operation_mixing_meta_and_cpu_tensors_is_refused_as_a_gpu_would(op, first, second):
    """A CPU tensor of one or more dimensions beside a meta tensor is refused; a CPU scalar
    (0-d) is not, and neither is an operation with no meta tensor at all."""
    kinds_in = {first, second}
    expected = "refused" if {"meta", "cpuN"} <= kinds_in else "ran"
    assert _outcome(lambda: ELEMENTWISE[op](_make(first), _make(second))) == expected


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["gather", "scatter_", "index", "index_put_"]),
    st.sampled_from(["meta", "cpuN"]),
    st.sampled_from(["meta", "cpuN"]),
)
def test_indices_follow_the_gpus_rules(op, self_kind, index_kind):
    """gather and scatter_ want the index on the tensor's device; advanced indexing takes CPU
    indices into a tensor on another device (a GPU allows it), never the other way round."""
    x, index = _make(self_kind), _index(index_kind)
    runs = {
        "gather": lambda: x.gather(1, index),
        "scatter_": lambda: x.clone().scatter_(1, index, 1.0),
        "index": lambda: x[index.squeeze(1)],
        "index_put_": lambda: x.clone().index_put_((index.squeeze(1),), torch.tensor(1.0)),
    }
    if op in ("index", "index_put_"):
        refused = self_kind == "cpuN" and index_kind == "meta"
    else:
        refused = self_kind != index_kind
    assert _outcome(runs[op]) == ("refused" if refused else "ran")


@pytest.mark.parametrize(
    "run",
    [
        lambda: torch.ones(3, 3).to("meta") + torch.ones(3, 3, device="meta"),
        lambda: torch.ones(3, 3, device="meta").copy_(torch.ones(3, 3)),
        lambda: torch.ones(3, 3, device="meta")[torch.tensor([True, False, True])],
        lambda: torch.zeros(2, 3, device="meta") * torch.tensor(0.5),
    ],
    ids=["to", "copy_", "cpu mask into meta", "cpu scalar"],
)
def test_what_a_gpu_allows_across_devices_still_runs(run):
    assert _outcome(run) == "ran"


LEARNER = """
import torch
from torch import nn


def model_left_on_cpu(x):
    return nn.Linear(x.shape[1], 2)(x)


def model_moved(x):
    return nn.Linear(x.shape[1], 2).to(x.device)(x)


def one_hot_built_on_cpu(labels, n):
    out = torch.zeros(labels.shape[0], n)
    out.scatter_(1, labels.unsqueeze(1), 1.0)
    return out.to(labels.device)


def one_hot_on_device(labels, n):
    out = torch.zeros(labels.shape[0], n, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def weights_on_cpu(x):
    return x @ torch.ones(x.shape[1], 2)
"""

_CALLS = textwrap.dedent(
    """
    import json, sys, tempfile
    from pathlib import Path
    import torch
    from grader.sandbox import child, codec

    folder = Path(tempfile.mkdtemp())
    learner = folder / "exercise-99.py"
    learner.write_text(sys.argv[1])
    side = child.LearnerSide(str(learner), 1 << 20, cuda=False)
    assert side.import_learner().ok
    found = {}
    for device in ("cpu", "meta"):
        x = torch.ones(4, 3, device=device)
        labels = torch.zeros(4, dtype=torch.long, device=device)
        for name, args in [
            ("model_left_on_cpu", [x]), ("model_moved", [x]),
            ("one_hot_built_on_cpu", [labels, 5]), ("one_hot_on_device", [labels, 5]),
            ("weights_on_cpu", [x]),
        ]:
            payload, blobs = codec.encode([args, {}])
            answer, _ = side.handle({"id": "x", "op": "call", "name": name, "seed": 0,
                                     "payload": payload}, [bytearray(b) for b in blobs])
            found[f"{name}/{device}"] = "ok" if answer.ok else answer.error.message
    print(json.dumps(found))
    """
)


def test_a_learners_cpu_tensors_beside_meta_inputs_fail_the_call_as_on_a_gpu():
    found = json.loads(run_fresh(_CALLS, args=(LEARNER,)))
    for name in ("model_left_on_cpu", "one_hot_built_on_cpu", "weights_on_cpu"):
        assert found[f"{name}/cpu"] == "ok"
        assert SAME_DEVICE in found[f"{name}/meta"], (name, found[f"{name}/meta"])
    for name in ("model_moved", "one_hot_on_device"):
        assert found[f"{name}/cpu"] == "ok" and found[f"{name}/meta"] == "ok", found


@pytest.mark.parametrize(
    "reads",
    [
        lambda x: x[x > 0].sum(),  # boolean indexing: nonzero
        lambda x: x.unique(),
        lambda x: x.masked_select(x > 0),
        lambda x: x.sum().item(),
    ],
    ids=["x[mask]", "unique", "masked_select", "item"],
)
def test_code_that_reads_values_on_meta_is_never_taken_for_a_copy_to_the_cpu(reads):
    """An operation whose result's shape depends on the values has no meta kernel: it reads
    values and copies nothing, so it is never named a device slip ("copied out of meta"); a
    test that catches reads gets it as one, and one that does not gets the learner's error."""
    import types

    from grader.testing.devices import call_on_meta

    module = types.SimpleNamespace(f=reads)
    x = torch.ones(3, device="meta")
    assert set(call_on_meta(module, "f", [x], catch_copies=True, catch_reads=True)) == {
        "reads_values"
    }
    with pytest.raises((NotImplementedError, RuntimeError)):
        call_on_meta(module, "f", [x], catch_copies=True, catch_reads=False)


def test_a_copy_out_of_meta_is_still_one():
    import types

    from grader.testing.devices import call_on_meta

    module = types.SimpleNamespace(f=lambda x: torch.zeros(3).copy_(x))
    answer = call_on_meta(module, "f", [torch.ones(3, device="meta")], catch_reads=True)
    assert "copied_out_of_meta" in answer


# -- correct code that reads values, on every exercise with a meta case -----------------------

_GRADE = """
import json, sys
from grader.catalog import Catalog, project_root
from grader.engine import GradeRequest, LocalEngine
files = json.loads(sys.argv[1])
requests = [GradeRequest(exercise=e, source=s.encode(), filename=f"{e}.py", devices=("cpu",))
            for e, s in files]
with LocalEngine(Catalog(project_root()), jobs=2) as engine:
    results = engine.grade_many(requests)
print(json.dumps([[[t.key, t.status.value, t.message] for t in r.tests
                   if t.status.value not in ("passed", "skipped")] for r in results]))
"""

EXERCISES = [f"{n:02d}" for n in range(1, 21)]
# those whose meta cases call functions that take a tensor first (the read happens there)
META_EXERCISES = ["05", "06", "07", "08", "09", "11", "15", "18"]


def _reading(source: str, extra: str) -> str:
    """The reference with a read of its first argument's values (when a tensor) as the first line
    of each function (an assert a careful learner writes: on a GPU it runs), and ``extra``
    after it."""
    import ast

    tree = ast.parse(source)
    lines = source.splitlines()
    inserts = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            first_arg = node.args.args[0].arg
            check = (
                f"assert not isinstance({first_arg}, torch.Tensor) or "
                f"bool({first_arg}.isfinite().all()) or True"
            )
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                first = node.body[1] if len(node.body) > 1 else first
            indent = " " * first.col_offset
            inserts.append(
                (first.lineno - 1, [indent + check] + ([indent + extra] if extra else []))
            )
    for index, added in sorted(inserts, reverse=True):
        lines[index:index] = added
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_correct_code_that_reads_values_passes_every_meta_case_and_a_cpu_tensor_still_fails():
    """Code that reads values cannot run on meta, yet on a GPU it runs: an assert on the inputs
    failed the device test of correct code on every machine. Its device is now judged from the
    source: the references with such a read pass everything; with a tensor made on the CPU
    beside the read, the device test fails."""
    from tests.conftest import ROOT

    files, kinds = [], []
    for number in EXERCISES:
        exercise = f"exercise-{number}"
        source = (ROOT / "solutions" / exercise / f"{exercise}.py").read_text()
        files.append((exercise, _reading(source, "")))
        kinds.append((exercise, "reads"))
        if number in META_EXERCISES:
            files.append((exercise, _reading(source, "_unused = torch.zeros(3)")))
            kinds.append((exercise, "reads and a CPU tensor"))
    found = json.loads(run_fresh(_GRADE, timeout=900, args=(json.dumps(files),)))
    for (exercise, kind), failed in zip(kinds, found, strict=True):
        if kind == "reads":
            assert failed == [], (exercise, failed)
        else:
            # only meta cases fail, each for the device its source shows
            assert failed, exercise
            for key, _, message in failed:
                assert key.endswith("[meta]") and "device" in message, (exercise, key, message)
