"""A shape error names sizes ("tensor a (3) must match tensor b (2)"), never which operand had
them, and the line it stops at is often not the line that made the wrong shape. Exercise 7's
``inter = wh[:, 0] * wh[:, 1]`` (the middle dim indexed where the last was meant) stopped at the
division two lines later, and the learner was told to add a size-1 dimension there. The
failing line's tensors are now named with their shapes; the fix points at the line that made
the operand not meant, either way."""

from __future__ import annotations

import linecache
from pathlib import Path

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox import child
from grader.sandbox.faults import LearnerRaised, raised
from grader.sandbox.messages import MAX_DIMS, MAX_SHAPES, ErrorFrame, ErrorInfo, MessageError

ROOT = Path(__file__).resolve().parent.parent


def test_exercise_7_names_the_operand_with_the_wrong_shape(curriculum_service, tmp_path):
    reference = (ROOT / "solutions" / "exercise-07" / "exercise-07.py").read_text()
    slipped = reference.replace("inter = wh[..., 0] * wh[..., 1]", "inter = wh[:, 0] * wh[:, 1]")
    assert slipped != reference
    path = tmp_path / "exercise-07.py"
    path.write_text(slipped)
    result = curriculum_service.grade("exercise-07", path, devices=("cpu",))
    crashed = [t for t in result.graded if "must match the size of tensor" in t.message]
    assert crashed, [(t.name, t.message) for t in result.graded]
    for test in crashed:
        # inter is (N, 2) where the areas make (N, M): the learner sees which one is wrong
        assert "inter has shape (" in test.message and ", 2), area_a (" in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "broadcast-error"
        assert "the line that made" in test.diagnosis.fix


def _describe(source: str, *args: object) -> ErrorInfo:
    """The ErrorInfo a child sends for an exception raised in ``source``'s function ``f``."""
    display = "exercise-99.py"
    linecache.cache[display] = (len(source), None, source.splitlines(True), display)
    namespace: dict = {"torch": torch}
    exec(compile(source, display, "exec"), namespace)
    described = child.LearnerSide.__new__(child.LearnerSide)
    described.display = display
    try:
        namespace["f"](*args)
    except Exception as exc:  # noqa: BLE001 - any exception is the case under test
        return described.describe(exc, "call")
    raise AssertionError("f did not raise")


def test_the_child_names_the_lines_tensors_not_attributes_and_any_python_name():
    info = _describe(
        "class Box:\n    pass\n\n"
        "def f(x):\n    形状 = x[:, :2]\n    box = Box()\n    box.x = x\n    y = x.sum(0)\n"
        "    return 形状 + y + box.x\n",
        torch.zeros(4, 3),
    )
    frame = info.frames[-1]
    assert dict(frame.shapes) == {"形状": (4, 2), "y": (3,)}  # box is no tensor
    assert "x" not in dict(frame.shapes)  # box.x is an attribute, not the local x
    again = ErrorInfo.from_wire(info.to_wire())
    assert again.frames[-1].shapes == frame.shapes


def test_a_tensor_subclass_that_will_not_tell_its_shape_gives_no_shapes():
    class Sly(torch.Tensor):
        @property
        def shape(self):  # type: ignore[override]
            raise RuntimeError("not telling")

    info = _describe(
        "def f(a, b):\n    return a + b\n", torch.zeros(3).as_subclass(Sly), torch.zeros(2)
    )
    assert info.frames and info.frames[-1].shapes == ()


def _error(message: str, shapes) -> ErrorInfo:
    return ErrorInfo(
        kind="call",
        type="RuntimeError",
        classes=("RuntimeError", "Exception", "BaseException", "object"),
        message=message,
        frames=(ErrorFrame(28, "iou_matrix", "return inter / union", tuple(shapes)),),
    )


SHAPES = st.lists(
    st.tuples(
        st.text(alphabet="abcxyz_形状", min_size=1, max_size=8).filter(str.isidentifier),
        st.lists(st.integers(0, 2**40), max_size=MAX_DIMS).map(tuple),
    ),
    min_size=1,
    max_size=MAX_SHAPES,
)


@given(shapes=SHAPES)
def test_shapes_are_told_on_shape_errors_only_in_both_languages(shapes):
    shape_error = raised(
        _error("The size of tensor a (3) must match the size of tensor b (2)", shapes), "f"
    )
    assert isinstance(shape_error, LearnerRaised)
    name, shape = shapes[0]
    assert f"On line 28: {name} has shape (" in shape_error.message.en
    assert f"第 28 行：{name} 的形状为 (" in shape_error.message.zh
    if len(shape) == 1:
        assert f"has shape ({shape[0]},)" in shape_error.message.en
    other = raised(_error("list index out of range", shapes), "f")
    assert "has shape" not in other.message.en and "形状" not in other.message.zh


@given(shapes=SHAPES)
def test_shapes_cross_the_wire_intact(shapes):
    frame = ErrorFrame(3, "f", "a + b", tuple(shapes))
    assert ErrorFrame.from_wire(frame.to_wire()) == frame


@pytest.mark.parametrize(
    "shapes",
    [
        [["a.b", [1]]],  # not a name
        [["import", [1]]],  # a keyword is no name either
        [["a", [-1]]],
        [["a", [True]]],
        [["a", [1.5]]],
        [["a", [1] * (MAX_DIMS + 1)]],
        [["a", [1]]] * (MAX_SHAPES + 1),
        [["a"]],
        [["a", [1], "x"]],
        "a",
        [["x" * 101, [1]]],
    ],
)
def test_a_forged_shape_is_refused(shapes):
    with pytest.raises(MessageError):
        ErrorFrame.from_wire({"line": 1, "function": "f", "code": "a", "shapes": shapes})
