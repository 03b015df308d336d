"""The symbolic-shapes and sympy stand-ins (grader.engine.symbolic): eager meta-device work runs
as with the real modules and never loads them, every helper answers as the real one does, and
whatever needs the real modules gets them.

Each case runs in a fresh interpreter: the stand-ins replace modules of torch's and sympy, and
the test process must keep its own as they are.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.conftest import run_fresh

# each case starts an interpreter of its own and imports torch: the slow tier (`make test-all`)
pytestmark = pytest.mark.slow

# as the warm-up puts them in place: torch._dynamo's stand-in too (meta ops call it first)
PRELUDE = """
import sys
import torch
from grader.engine import dynamo, symbolic
assert dynamo.install() and symbolic.install()
def stand_ins():
    return [type(sys.modules[n]).__name__ for n in (symbolic.SYMPY, symbolic.SHAPES)]
"""

# Meta-device work of the kind the hidden tests and learners' functions do, each line's
# shapes, dtypes and strides (or the error) printed: the same with the stand-ins as without.
META_WORK = """
def show(make):
    try:
        t = make()
        return [list(t.shape), str(t.dtype), list(t.stride()), t.device.type]
    except Exception as exc:
        return [type(exc).__name__, str(exc).splitlines()[0]]
x = torch.arange(6, device="meta", dtype=torch.float32).reshape(2, 3)
i = torch.arange(6, device="meta").reshape(3, 2)
cases = [
    lambda: x + 1, lambda: x + torch.zeros(2, 3, device="meta"), lambda: (x * 2 - 1) / 3,
    lambda: x.t().contiguous().view(-1), lambda: x.unsqueeze(0).expand(4, 2, 3) + x,
    lambda: x @ x.t(), lambda: torch.cat([x, x], 1), lambda: torch.stack([x, x]),
    lambda: x.sum(0), lambda: x.mean(), lambda: torch.where(x > 0, x, -x), lambda: x.clamp(0, 1),
    lambda: i + 1.5, lambda: i // 2, lambda: i.float().softmax(-1), lambda: torch.exp(x),
    lambda: x.reshape(3, 2), lambda: x[:, 1:], lambda: x.flip(0), lambda: x.cumsum(1),
    lambda: torch.arange(0, 10, 3, device="meta"), lambda: torch.linspace(0, 1, 5, device="meta"),
    lambda: x + torch.ones(3, 2, device="meta"), lambda: x.view(4), lambda: x.t().view(-1),
    lambda: x + torch.ones(2, 3), lambda: torch.zeros(0, 3, device="meta") + x[:0],
]
print(json.dumps([show(c) for c in cases]))
"""


def run(code: str, prelude: str = PRELUDE) -> str:
    return run_fresh(prelude + textwrap.dedent(code))


def test_eager_meta_work_never_loads_the_real_modules():
    out = run("import json\n" + META_WORK + "print(stand_ins())\n")
    assert out.splitlines()[-1] == "['SympyStandIn', 'ShapesStandIn']"


@pytest.mark.slow  # meta work with and without the stand-ins, each in fresh interpreters
def test_meta_work_gives_the_same_shapes_and_errors_as_with_the_real_modules():
    with_stand_ins = run("import json\n" + META_WORK)
    real = run("import json\n" + META_WORK, prelude="import sys, torch\n")
    assert json.loads(with_stand_ins) == json.loads(real)
    assert "RuntimeError" in with_stand_ins  # meta + cpu still fails as it does


def test_every_helper_answers_plain_values_as_the_real_one_does():
    """Each helper the stand-in answers, on plain values and on wrong types: where the stand-in
    gives a plain answer, the real function gives the same value of the same type and no
    warning; every other call (a wrong type, which the real one rejects) goes to the real
    function."""
    out = run(
        """
        import json, warnings
        values = [True, False, 0, 1, 7, -3, 2.5, None, "s", (1, 2), [1, 2], (1, (2, 3))]
        pairs = [((1, 2), (1, 2)), ((1, 2), [1, 2]), ((1, 2), (1, 3)), ((1,), (1, 2)),
                 (3, 3), (3, 4), (True, 1), ((1, (2, 3)), (1, (2, 3))), (1.0, 1), ("a", "a")]
        folds = [(True,), (False, True), (True, True), (False, False, True), (1, 0), (True, 1)]
        calls = []
        for name in sorted(symbolic._PLAIN):
            if name == "sym_eq":
                calls += [(name, p) for p in pairs]
            elif name in ("sym_or", "sym_and"):
                calls += [(name, f) for f in folds]
            else:
                calls += [(name, (v,)) for v in values]
        plain = [symbolic._PLAIN[name](*args) for name, args in calls]
        real_module = symbolic.load_real(symbolic.SHAPES)
        rows = []
        for (name, args), mine in zip(calls, plain):
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                try:
                    value = getattr(real_module, name)(*args)
                    real = ["value", repr(value), type(value).__name__]
                except Exception as exc:
                    real = ["raises", type(exc).__name__]
            if warned:  # a warning the stand-in would not give: it must not answer here
                real.append([str(w.message) for w in warned])
            answered = mine is not symbolic._NOT_PLAIN
            rows.append([name, repr(args), answered,
                         ["value", repr(mine), type(mine).__name__] if answered else None, real])
        print(json.dumps(rows))
        """
    )
    rows = json.loads(out)
    answered = [r for r in rows if r[2]]
    assert [r for r in answered if r[3] != r[4]] == []
    # every helper but the one left to the real module answers some calls itself
    assert {r[0] for r in answered} == {r[0] for r in rows} - {"guard_size_oblivious"}
    assert len(answered) >= 40


def test_whatever_needs_the_real_modules_gets_them():
    out = run(
        """
        import sympy as taken_early                  # the stand-in
        from torch.fx.experimental import symbolic_shapes as shapes_early
        print(isinstance(3, taken_early.Basic), shapes_early.guard_or_false(True))
        x = taken_early.Symbol("x")                  # sympy itself: the real one loads
        print(stand_ins()[0], isinstance(x, taken_early.Basic), isinstance(x, sys.modules["sympy"].Basic))
        import sympy.core.numbers                    # a submodule of the real package
        env = shapes_early.ShapeEnv()                # anything else of the shapes module
        print(stand_ins()[1], type(env).__name__, shapes_early.guard_or_false(False))
        print(torch.fx.experimental.symbolic_shapes is sys.modules[symbolic.SHAPES])
        """
    )
    assert out.splitlines() == [
        "False True",
        "module True True",
        "module ShapeEnv False",
        "True",
    ]


def test_a_learner_reading_sympys_version_gets_the_real_one():
    out = run(
        """
        import sympy
        version = sympy.__version__
        print(version == sys.modules["sympy"].__version__, stand_ins()[0], sympy.__file__ != "")
        """
    )
    assert out.split() == ["True", "module", "True"]


def test_a_learners_compiled_function_runs_with_the_real_modules():
    out = run(
        """
        from grader.engine import dynamo
        dynamo.install()
        f = torch.compile(lambda a: (a * 2 + 1).sum(), backend="eager")
        print(f(torch.ones(3)).item(), stand_ins())
        """
    )
    assert out.split("\n")[0] == "9.0 ['module', 'module']"


@pytest.mark.parametrize("readable", [True, False])
def test_the_warm_up_uses_the_stand_ins_only_where_children_could_load_the_real_modules(
    readable,
):
    out = run(
        f"""
        from grader.engine import warmup
        warmup.children_can_import = lambda: {readable}
        warmup.warm_up(dynamo=True)
        print(stand_ins())
        """,
        prelude="import sys, torch\nfrom grader.engine import symbolic\n"
        "def stand_ins():\n"
        "    return [type(sys.modules[n]).__name__ for n in (symbolic.SYMPY, symbolic.SHAPES)]\n",
    )
    expected = "['SympyStandIn', 'ShapesStandIn']" if readable else "['module', 'module']"
    assert out.strip() == expected


def test_a_traceback_source_lookup_loads_neither_real_module():
    """``inspect.getmodule`` (run by every traceback source lookup: pytest's failure reports,
    ``inspect.stack``) asks each module of sys.modules for its ``__file__``. The stand-ins
    answer with the real packages' files, as the real modules would, and load nothing."""
    out = run(
        """
        import inspect, os
        try:
            torch.ones(2) @ torch.ones(3)
        except RuntimeError as exc:
            frame = exc.__traceback__.tb_frame
        inspect.getmodule(frame)  # "<string>": every module of sys.modules is asked
        print(stand_ins())
        for name, tail in ((symbolic.SYMPY, "sympy/__init__.py"),
                           (symbolic.SHAPES, "experimental/symbolic_shapes.py")):
            found = sys.modules[name].__file__
            print(os.path.isfile(found) and found.endswith(tail), stand_ins())
        """
    )
    assert (
        out.splitlines()
        == ["['SympyStandIn', 'ShapesStandIn']"] + ["True ['SympyStandIn', 'ShapesStandIn']"] * 2
    )
