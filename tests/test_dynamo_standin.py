"""The torch._dynamo stand-in (grader.engine.dynamo): eager code runs as with the real module,
the real module is never loaded where grading does not need it, and whatever needs it gets it.

Each case runs in a fresh interpreter: the stand-in replaces a module of torch's, and the test
process must keep its own torch as it is.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import run_fresh

# each case starts an interpreter of its own and imports torch: the slow tier (`make test-all`)
pytestmark = pytest.mark.slow

PRELUDE = """
import sys
import torch
from grader.engine import dynamo
assert dynamo.install()
def stand_in():
    return type(sys.modules["torch._dynamo"]).__name__ == "DynamoStandIn"
"""


def run(code: str) -> str:
    return run_fresh(PRELUDE + textwrap.dedent(code), timeout=120)


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


@pytest.mark.slow  # compiles with the real torch._dynamo in a fresh interpreter
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


@pytest.mark.parametrize("meta", [True, False])
def test_after_the_warm_up_printing_tensors_imports_nothing(meta):
    # a learner child may be unable to read the Python installation (the process tier as root,
    # a virtualenv in a private folder): whatever printing tensors imports must be imported
    # before the fork (the real torch._dynamo used to bring it in)
    out = run(
        f"""
        from grader.engine.warmup import warm_up
        warm_up(dynamo={meta})
        before = set(sys.modules)
        print(torch.ones(3), torch.ones(2, 2, device="meta"), torch.ones(2, requires_grad=True) * 2)
        print(repr(torch.randn(3, 3)), torch.tensor(3.5), torch.zeros(0), torch.ones(2) > 0)
        print("NEW", sorted(set(sys.modules) - before))
        """
    )
    assert out.splitlines()[-1] == "NEW []"


def test_children_that_cannot_read_torch_get_the_real_module(tmp_path, monkeypatch):
    # As root, learner children run as a uid of their own and read the runtime through its own
    # permissions: the namespaces tier binds it into a root of their own, and the process tier
    # keeps root's uid where the host's folders would stop them. A torch closed to others
    # leaves them unable to load the real module on demand (a learner's torch.func), so the
    # warm-up loads it before the fork instead; a private home above the runtime does not.
    import torch

    from grader.engine import warmup
    from grader.sandbox import policy

    home = tmp_path / "home"
    venv = home / "venv"
    inside = [venv, venv / "lib", venv / "lib" / "site-packages"]
    folder = inside[-1] / "torch"
    folder.mkdir(parents=True)
    for path in (*inside, folder):
        path.chmod(0o755)
    home.chmod(0o700)
    monkeypatch.setattr(torch, "__file__", str(folder / "__init__.py"))
    monkeypatch.setattr(policy, "runtime_paths", lambda: [str(venv)])
    monkeypatch.setattr(warmup.os, "geteuid", lambda: 0)
    assert warmup.children_can_import() is True  # only the home above the runtime is private
    folder.chmod(0o700)
    assert warmup.children_can_import() is False
    folder.chmod(0o755)
    inside[1].chmod(0o700)
    assert warmup.children_can_import() is False  # inside the runtime, every folder counts
    inside[1].chmod(0o755)
    monkeypatch.setattr(policy, "runtime_paths", lambda: [])
    assert warmup.children_can_import() is False  # outside any runtime folder: every parent
    monkeypatch.setattr(warmup.os, "geteuid", lambda: 1000)
    folder.chmod(0o700)
    assert warmup.children_can_import() is True  # children run as this user: they can read it


def test_the_warm_up_loads_the_real_module_where_children_could_not():
    out = run(
        """
        sys.modules.pop("torch._dynamo")  # the prelude's stand-in: the warm-up decides
        del torch._dynamo
        from grader.engine import warmup
        warmup.children_can_import = lambda: False
        warmup.warm_up(dynamo=True)
        print(stand_in(), "torch._dynamo.convert_frame" in sys.modules)
        """
    )
    assert out.split() == ["False", "True"]
