"""Measurements made inside the learner's process cannot gain points.

Operation counts, traced calls, the inputs after a call, memory sharing and the verdicts of
scenarios are measured where the learner's code runs, so that code can rewrite them. Each case
here is an attack that worked against an earlier version of the grader, on a real exercise:
the test it targets must not pass. What holds them off (docs/SECURITY.md): the trusted side's
static analysis of the whole file (loops anywhere reachable, forbidden APIs by what they
resolve to), and the static review that flags a file reaching into the grader's or torch's
internals, for which no test resting on an in-process measurement can pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.results import Result, Status
from tests.conftest import ROOT

REFERENCE = {
    n: (ROOT / "solutions" / f"exercise-{n:02d}" / f"exercise-{n:02d}.py").read_text()
    for n in (1, 3, 7, 8)
}

LOOPED_PAIRWISE = """
def pairwise_distance(x):
    n = x.shape[0]
    out = torch.empty(n, n, dtype=x.dtype, device=x.device)
    for i in range(n):
        out[i] = (x - x[i]).pow(2).sum(dim=-1).sqrt()
    return out
"""


@dataclass(frozen=True)
class Attack:
    name: str
    exercise: int
    source: str
    test: str  # the test that must not pass
    message: str  # what its message must say (a regular expression)


def _replace(exercise: int, function: str, code: str, prelude: str = "") -> str:
    """The reference with ``function`` replaced by ``code`` (and ``prelude`` at the top)."""
    source = REFERENCE[exercise]
    start = source.index(f"def {function}(")
    end = source.find("\ndef ", start + 1)
    end = len(source) if end < 0 else end + 1
    return prelude + source[:start] + code.strip() + "\n\n\n" + source[end:]


ATTACKS = [
    Attack(
        "op_count_forged",
        7,
        _replace(
            7,
            "pairwise_distance",
            LOOPED_PAIRWISE,
            prelude="import sys\n\n\ndef _quiet(self, func, types, args=(), kwargs=None):\n"
            "    return func(*args, **(kwargs or {}))\n\n\n"
            "for _name, _module in list(sys.modules.items()):\n"
            "    if _name.endswith('sandbox.child'):\n"
            "        _module._OpCount.__torch_dispatch__ = _quiet\n\n",
        ),
        "test_pairwise_no_python_loops",
        r"loop|review",
    ),
    Attack(
        "loop_in_a_helper",
        7,
        _replace(
            7,
            "pairwise_distance",
            "def _row(x, i):\n    return (x - x[i]).pow(2).sum(dim=-1).sqrt()\n\n\n"
            "def _rows(x):\n    return [_row(x, i) for i in range(x.shape[0])]\n\n\n"
            "def pairwise_distance(x):\n    return torch.stack(_rows(x))\n",
        ),
        "test_pairwise_no_python_loops",
        r"loop",
    ),
    Attack(
        "long_prefix",
        7,
        '"""' + "x" * 200_000 + '"""\n' + _replace(7, "pairwise_distance", LOOPED_PAIRWISE),
        "test_pairwise_no_python_loops",
        r"loop",
    ),
    Attack(
        "vectorised_only_when_traced",
        7,
        _replace(
            7,
            "pairwise_distance",
            "def pairwise_distance(x):\n"
            "    if torch._C._is_torch_function_mode_enabled():\n"
            "        return (x[:, None] - x[None]).pow(2).sum(-1).sqrt()\n"
            "    n = x.shape[0]\n"
            "    return torch.stack([(x - x[i]).pow(2).sum(-1).sqrt() for i in range(n)])\n",
        ),
        "test_pairwise_no_python_loops",
        r"loop|review",
    ),
    Attack(
        "private_softmax",
        8,
        _replace(
            8, "softmax_rows", "def softmax_rows(x):\n    return torch._softmax(x, 1, False)\n"
        ),
        "test_softmax_rows_forbidden",
        r"softmax",
    ),
    Attack(
        "computed_softmax",
        8,
        _replace(
            8,
            "softmax_rows",
            "def softmax_rows(x):\n"
            "    with torch._C.DisableTorchFunction():\n"
            "        return getattr(torch, 'soft' + 'max')(x, 1)\n",
        ),
        "test_softmax_rows_forbidden",
        r"softmax|computed|cannot|not be ruled out",
    ),
    Attack(
        "overlap_disabled",
        3,
        _replace(
            3,
            "corner_copy",
            "def corner_copy(x, k):\n    return x[:k, :k]\n",
            prelude="import sys\n\nfor _name, _module in list(sys.modules.items()):\n"
            "    if _name.endswith('sandbox.codec'):\n"
            "        _module.Encoder._shares = lambda self, span: []\n\n",
        ),
        "test_corner_copy_independent",
        r"review|shares",
    ),
    Attack(
        "scenario_comparison_patched",
        1,
        _replace(
            1,
            "init_weights",
            "def init_weights(fan_in, fan_out, generator):\n"
            "    return torch.randn(fan_in, fan_out) * 0.01\n",
            prelude="import torch\n\ntorch.equal = lambda a, b: True\n\n",
        ),
        "test_init_weights_uses_generator",
        r"review|generator",
    ),
    Attack(
        "meta_read_error_raised_on_purpose",
        3,
        _replace(
            3,
            "corner_copy",
            "def corner_copy(x, k):\n"
            "    if x.device.type == 'meta':\n"
            "        raise RuntimeError('Tensor.item() cannot be called on meta tensors')\n"
            "    return x[:k, :k].cpu().clone()\n",
        ),
        "test_corner_copy_on_input_device",
        r"device",
    ),
    # the meta device stands in for a GPU: code that honours the device only when it is meta
    # must not pass the device case (the trusted side reads the branch in the source)
    Attack(
        "device_honoured_only_on_meta",
        3,
        _replace(
            3,
            "corner_copy",
            "def corner_copy(x, k):\n"
            "    if x.device.type == 'meta':\n"
            "        return x[:k, :k].clone()\n"
            "    return x[:k, :k].cpu().clone()\n",
        ),
        "test_corner_copy_on_input_device",
        r"decides by the device",
    ),
    # ... and neither must code that moves its answer to the input's device only when an
    # operation raises: copying a meta tensor's data into a CPU tensor fails, on CUDA it works
    # and the answer stays on the CPU (the trusted side reads the handler in the source)
    Attack(
        "device_fallback_on_error",
        3,
        _replace(
            3,
            "corner_copy",
            "def corner_copy(x, k):\n"
            "    out = torch.empty(min(k, x.shape[0]), min(k, x.shape[1]), dtype=x.dtype)\n"
            "    try:\n"
            "        out.copy_(x[:k, :k])\n"
            "    except Exception:\n"
            "        out = x[:k, :k].clone()\n"
            "    return out\n",
        ),
        "test_corner_copy_on_input_device",
        r"catches errors",
    ),
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_a_forged_measurement_gains_nothing(attack, curriculum_service, tmp_path):
    submission = tmp_path / f"exercise-{attack.exercise:02d}.py"
    submission.write_text(attack.source)
    result: Result = curriculum_service.grade(
        f"exercise-{attack.exercise:02d}", submission, devices=("cpu",)
    )
    target = [t for t in result.tests if t.name == attack.test]
    assert target, f"{attack.test} did not run"
    for test in target:
        assert test.status is not Status.PASSED, (test.key, "passed")
        assert test.points == 0
        assert re.search(attack.message, test.message, re.I), (test.key, test.message)


def test_reaching_in_is_flagged_for_review(curriculum_service, tmp_path):
    """The learner sees the warning in their own grading too, so an honest learner knows."""
    submission = tmp_path / "exercise-03.py"
    submission.write_text(next(a for a in ATTACKS if a.name == "overlap_disabled").source)
    result = curriculum_service.grade("exercise-03", submission, devices=("cpu",))
    assert result.review and any(n.kind in ("sys_modules", "monkeypatch") for n in result.review)
    # the values are right (a view holds them), but every call's input check is measured in
    # the learner's process: those tests fail, saying why and naming the line that reaches in
    values = [t for t in result.tests if t.name == "test_corner_copy_values"]
    assert values
    for test in values:
        assert test.status is Status.FAILED and test.evidence == ("needs_review",), test
        assert (
            "cannot count them" in test.message and f"line {result.review[0].line}" in test.message
        )


def test_honest_files_are_never_flagged(curriculum_service, tmp_path):
    for n in (1, 3, 7, 8):
        path = Path(tmp_path) / f"exercise-{n:02d}.py"
        path.write_text(REFERENCE[n])
        result = curriculum_service.grade(f"exercise-{n:02d}", path, devices=("cpu",))
        assert result.review == (), (n, result.review)
        assert result.status is Status.PASSED, (
            n,
            [t.message for t in result.tests if t.status is not Status.PASSED],
        )
