"""Exercise 2: describe's "device" as t.device.type ("cuda" for cuda:0) was caught on a GPU
machine only, so a learner without one was told all was well. A CPU tensor that reports
cuda:1 (every way a tensor tells its device, alike) now shows it anywhere; code that builds the
text by hand from any of those ways still passes."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "solutions" / "exercise-02" / "exercise-02.py").read_text()
LINE = '"device": str(t.device),'


def _graded(service, tmp_path, device_expression):
    source = REFERENCE.replace(LINE, f'"device": {device_expression},')
    assert source != REFERENCE
    path = tmp_path / "exercise-02.py"
    path.write_text(source)
    result = service.grade("exercise-02", path, devices=("cpu",))
    return {(t.name, t.device): t for t in result.graded}


@pytest.mark.parametrize(
    "expression", ["t.device.type", "str(t.device).split(':')[0]", "t.device.type.lower()"]
)
def test_the_device_without_its_index_fails_without_a_gpu(curriculum_service, tmp_path, expression):
    tests = _graded(curriculum_service, tmp_path, expression)
    device_test = tests[("test_describe_device", "meta")]
    assert device_test.status == "failed"
    assert "should be 'cuda:1', but yours is 'cuda'" in device_test.message
    assert "t.device.type drops it" in device_test.message


@pytest.mark.parametrize(
    "expression",
    [
        "f'{t.device}'",
        "t.device.type + (f':{t.device.index}' if t.device.index is not None else '')",
        "(f'cuda:{t.get_device()}' if t.is_cuda else t.device.type)",
        "('cpu' if t.is_cpu else str(t.device))",
    ],
)
def test_the_device_built_by_hand_from_any_of_its_parts_passes(
    curriculum_service, tmp_path, expression
):
    tests = _graded(curriculum_service, tmp_path, expression)
    assert tests[("test_describe_device", "meta")].status == "passed", tests[
        ("test_describe_device", "meta")
    ].message
