"""A Python loop over a meta tensor's values (``lengths.tolist()``, exercise 12's loop-built
mask with ``device=lengths.device``) raised "Cannot copy out of meta tensor", the message of
a copy to the CPU, and was failed as "built the mask on the CPU", though on a GPU it runs
and builds the mask on the GPU. ``call_on_meta`` now tells a read by ``.tolist()`` from a
copy by the learner's line that raised: a read is judged from the source (as ``.item()`` is),
a copy (``.cpu()``) is still a copy, and torch itself is left as it was."""

from __future__ import annotations

import types

import pytest
import torch

from grader.testing.devices import call_on_meta


def _module(body):
    return types.SimpleNamespace(f=body)


def test_tolist_of_a_meta_tensor_is_a_read_not_a_copy():
    lengths = torch.zeros(3, dtype=torch.int64, device="meta")
    rows = _module(lambda x: torch.tensor([[i < n for i in range(2)] for n in x.tolist()]))
    answer = call_on_meta(rows, "f", [lengths], catch_reads=True)
    assert set(answer) == {"reads_values"}


def test_a_read_raises_as_item_does_where_reads_are_not_caught():
    lengths = torch.zeros(3, dtype=torch.int64, device="meta")
    rows = _module(lambda x: torch.tensor([[i < n for i in range(2)] for n in x.tolist()]))
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        call_on_meta(rows, "f", [lengths])


def test_a_copy_to_the_cpu_is_still_a_copy():
    x = torch.zeros(3, device="meta")
    answer = call_on_meta(_module(lambda x: x.cpu() + 1), "f", [x], catch_reads=True)
    assert "Cannot copy out of meta tensor" in answer["copied_out_of_meta"]


def test_tolist_is_left_as_it_was_when_the_learners_code_raises():
    original = torch.Tensor.tolist

    def boom(x):
        raise ValueError("learner's own")

    try:
        call_on_meta(_module(boom), "f", [torch.zeros(2, device="meta")])
    except ValueError:
        pass
    assert torch.Tensor.tolist is original
    assert torch.zeros(2).tolist() == [0.0, 0.0]  # CPU tensors read as before
