"""torch.finfo on an integer or bool dtype, or torch.iinfo on a floating or bool one (exercise
02's nbytes as numel * finfo(dtype).bits // 8) got only PyTorch's message, which sends the
learner from finfo to iinfo and on to the next failure (bool). Each refusal is now named."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match

DTYPES = [torch.float32, torch.float16, torch.int64, torch.int8, torch.uint8, torch.bool]


@pytest.mark.parametrize("info", [torch.finfo, torch.iinfo])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_refusal_of_finfo_and_iinfo_is_named(info, dtype):
    try:
        info(dtype)
    except TypeError as exc:
        error = {"type": "TypeError", "message": str(exc)}
    else:
        return  # the right kind of dtype: nothing to name
    entry = match(DiagnosisCatalog.load(), (), error)
    assert entry is not None and entry.id == "dtype-info-wrong-kind"
    assert "t.element_size()" in entry.fix.en and "t.element_size()" in entry.fix.zh
