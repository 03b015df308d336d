"""Exercise 6: hwc_to_chw as img.transpose(2, 0, 1) (NumPy's transpose takes the whole order)
raised "transpose() takes 2 positional arguments but 3 were given" and got no diagnosis. That
TypeError, and its neighbours from a tuple order or swapaxes, are now named
"transpose-two-dims" (use permute); other transpose and permute errors are not."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()
IMG = torch.zeros(4, 5, 3)


def _raised(call) -> dict[str, str]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - PyTorch's own exception, whatever its type
        return {"type": type(exc).__name__, "message": str(exc)}
    raise AssertionError("no exception")


@pytest.mark.parametrize(
    "call",
    [
        lambda: IMG.transpose(2, 0, 1),
        lambda: IMG.transpose((2, 0, 1)),
        lambda: IMG.transpose([2, 0, 1]),
        lambda: torch.transpose(IMG, 2, 0, 1),
        lambda: IMG.swapaxes(2, 0, 1),
    ],
)
def test_a_full_order_given_to_transpose_is_named(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is not None and entry.id == "transpose-two-dims"


@pytest.mark.parametrize(
    "call",
    [
        lambda: IMG.transpose(0, 3),  # a dim out of range
        lambda: IMG.permute(2, 0),  # too few dims for permute
        lambda: IMG.reshape(2, 0, 1),
    ],
)
def test_other_errors_are_not_named_so(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is None or entry.id != "transpose-two-dims"
