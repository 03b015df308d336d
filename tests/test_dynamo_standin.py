"""The torch._dynamo stand-in (grader.engine.dynamo): eager code runs as with the real module,
the real module is never loaded where grading does not need it, and whatever needs it gets it.

Each case runs in a fresh interpreter: the stand-in replaces a module of torch's, and the test
process must keep its own torch as it is.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

PRELUDE = """
import sys
import torch
from grader.engine import dynamo
assert dynamo.install()
def stand_in():
    return type(sys.modules["torch._dynamo"]).__name__ == "DynamoStandIn"
"""


def run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_eager_work_never_loads_the_real_module():
    out = run(
        """
        from torch.utils._python_dispatch import TorchDispatchMode
        x = torch.arange(6, device="meta", dtype=torch.float32).reshape(2, 3)
        y = (x + torch.zeros(2, 3, device="meta")).t().contiguous().view(-1)
        assert y.shape == (6,) and y.device.type == "meta"
        try:
            x + torch.randn(2, 3)
        except RuntimeError as exc:
            assert "meta" in str(exc)
        else:
            raise AssertionError("meta + cpu should fail as it does on the real module")
        model = torch.nn.Linear(3, 1)
        for optimizer in (torch.optim.SGD(model.parameters(), lr=0.1),
                          torch.optim.Adam(model.parameters())):
            model(torch.randn(4, 3)).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
        seen = []
        class Count(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))
        with Count():
            torch.ones(3) + 1
        assert seen, "the dispatch mode saw nothing"
        print(stand_in())
        """
    )
    assert out.split() == ["True"]


def test_same_numbers_as_with_the_real_module():
    code = """
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        X, y = torch.randn(32, 4), torch.randn(32, 1)
        for _ in range(20):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(X), y)
            loss.backward()
            optimizer.step()
        print(repr(loss.item()), torch.arange(5, device="meta").shape)
        """
    with_stand_in = run(code)
    real = run("import torch._dynamo.eval_frame\n" + textwrap.dedent(code))
    assert with_stand_in == real


def test_what_needs_the_real_module_gets_it():
    out = run(
        """
        import torch._dynamo as taken_early          # the stand-in
        import torch._dynamo.eval_frame as eval_frame  # a submodule: the real package loads
        real = sys.modules["torch._dynamo"]
        print(stand_in(), real.eval_frame is eval_frame, torch._dynamo is real)
        print(taken_early.disable is not None, taken_early.reset is real.reset)
        print(torch.compile(lambda a: a * 2)(torch.ones(2)).tolist())
        """
    )
    assert out.split("\n")[:3] == ["False True True", "True True", "[2.0, 2.0]"]


@pytest.mark.parametrize("attribute", ["config", "reset", "compiled_autograd"])
def test_any_other_attribute_loads_the_real_module(attribute):
    out = run(
        f"""
        value = getattr(torch._dynamo, {attribute!r})
        print(stand_in(), value is getattr(sys.modules["torch._dynamo"], {attribute!r}))
        """
    )
    assert out.split() == ["False", "True"]
