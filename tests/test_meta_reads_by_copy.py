"""On meta, ``.tolist()`` (and ``.cpu()`` on the way to ``.numpy()``, ``.tolist()`` or
``.item()``) raises "Cannot copy out of meta tensor", as a tensor filled on the CPU does. Such
code reads values, which a GPU does too: correct code (``out[range(n), labels.tolist()] = 1``
in exercise 04) failed its meta cases with "a tensor made without device=... lands on the CPU".
The learner's line that raised now tells a read from a copy."""

from __future__ import annotations

import linecache
import types

import pytest
import torch

from grader.testing.devices import call_on_meta


def _module(body: str) -> types.ModuleType:
    # as the learner's process runs the file: compiled under its name, its lines in linecache
    source = f"import torch\n\n\ndef f(x):\n{body}\n"
    linecache.cache["exercise-04.py"] = (len(source), None, source.splitlines(True), "x")
    module = types.ModuleType("learner")
    exec(compile(source, "exercise-04.py", "exec"), vars(module))
    return module


X = [torch.zeros(3, 4, dtype=torch.long, device="meta")]
READS = [
    "    return torch.zeros(3, device=x.device) + len(x.tolist())",
    "    n = x.cpu().tolist()\n    return x.new_zeros(len(n))",
    "    return x.new_zeros(int(x.sum().cpu().item()))",
    "    return x.new_zeros(x.cpu().numpy().shape)",
]
COPIES = [
    "    return x.cpu()",
    "    out = torch.zeros(3, 4, dtype=torch.long)\n    out.copy_(x)\n    return out",
    "    return x.to('cpu') + 1",
]


@pytest.mark.parametrize("body", READS)
def test_a_read_through_a_copy_is_a_read(body):
    assert call_on_meta(_module(body), "f", X, catch_reads=True) == {
        "reads_values": "Cannot copy out of meta tensor; no data!"
    }
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        call_on_meta(_module(body), "f", X)


@pytest.mark.parametrize("body", COPIES)
def test_a_copy_that_stays_a_tensor_is_a_copy(body):
    answer = call_on_meta(_module(body), "f", X, catch_reads=True)
    assert "copied_out_of_meta" in answer
