"""Without a GPU, a device slip in code that reads values (a mask's selection, a loop over the
elements) went unseen: meta tensors have no values, so exercise 3's device test ran on CUDA
alone. CPU tensors that report cuda:1 now stand in (grader.testing.devices
.follows_reported_cuda): an answer made without the inputs' device is a plain CPU tensor."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.testing import follows_reported_cuda
from grader.testing.checks import CheckFailed

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "solutions" / "exercise-03" / "exercise-03.py").read_text()
LINE = "    return x[x > 0]\n"


def _device_test(service, tmp_path, body):
    source = REFERENCE.replace(LINE, body)
    assert source != REFERENCE
    path = tmp_path / "exercise-03.py"
    path.write_text(source)
    result = service.grade("exercise-03", path, devices=("cpu",))
    return {t.device: t for t in result.graded if t.name == "test_selections_on_input_device"}


@pytest.mark.parametrize(
    "body",
    [
        "    return torch.tensor([v.item() for v in x.reshape(-1) if v > 0], dtype=x.dtype)\n",
        "    import numpy as np\n    a = x.numpy()\n    return torch.from_numpy(a[a > 0])\n",
        "    return torch.as_tensor([float(v) for v in x.flatten() if v > 0]).to(x.dtype)\n",
    ],
)
def test_a_result_made_on_the_cpu_fails_without_a_gpu(curriculum_service, tmp_path, body):
    tests = _device_test(curriculum_service, tmp_path, body)
    assert tests["cpu"].status == "failed", tests["cpu"].message
    assert "returned a tensor on the CPU" in tests["cpu"].message
    assert "wrong_device" in tests["cpu"].evidence


@pytest.mark.parametrize(
    "body",
    [
        "    return torch.masked_select(x, x > 0)\n",
        "    flat = x.flatten()\n    return flat[flat > 0]\n",
        "    kept = [v for v in x.reshape(-1) if v > 0]\n"
        "    return torch.stack(kept) if kept else x.new_empty(0)\n",
        # reaches for the real cuda:1 here and raises: judged on a GPU machine alone
        "    return torch.tensor([v.item() for v in x.reshape(-1) if v > 0], dtype=x.dtype,"
        " device=x.device)\n",
    ],
)
def test_results_that_follow_the_inputs_pass(curriculum_service, tmp_path, body):
    tests = _device_test(curriculum_service, tmp_path, body)
    assert tests["cpu"].status == "passed", tests["cpu"].message


class _Forged:
    def __init__(self, answer):
        self.answer = answer

    def run(self, *_args):
        return self.answer


answers = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["devices", "raised", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(answer=answers)
def test_a_forged_or_malformed_answer_never_passes_silently(answer):
    """Only the two forms the scenario gives are read: a raise (left to a GPU), or devices none
    of which is the CPU. Anything else fails (closed), and nothing else is raised."""
    honest = isinstance(answer, dict) and (
        (set(answer) == {"raised"} and isinstance(answer["raised"], str))
        or (
            set(answer) == {"devices"}
            and isinstance(answer["devices"], list)
            and all(isinstance(d, str) for d in answer["devices"])
            and "cpu" not in answer["devices"]
        )
    )
    if honest:
        follows_reported_cuda(_Forged(answer), "positives", [], "positives(x)")
    else:
        with pytest.raises(CheckFailed):
            follows_reported_cuda(_Forged(answer), "positives", [], "positives(x)")
