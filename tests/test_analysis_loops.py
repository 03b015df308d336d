"""Loops, iteration helpers and recursion anywhere in the code reachable from a function."""

from __future__ import annotations

import pytest

from grader.testing.analysis import Analysis, loops_in, reach
from tests.conftest import ROOT


def loops(body: str, function="f", growth="constant"):
    source = "import torch\n" + body
    return [(x.kind, x.line, x.function) for x in loops_in(source, function, growth)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("def f(x):\n    for r in x:\n        pass\n", [("for loop", 3, "f")]),
        (
            "def f(x):\n    while x.sum() > 0:\n        x = x - 1\n    return x\n",
            [("while loop", 3, "f")],
        ),
        ("async def f(x):\n    async for r in x:\n        pass\n", [("async for loop", 3, "f")]),
        (
            "def f(x):\n    return torch.stack([r * 2 for r in x])\n",
            [("list comprehension", 3, "f")],
        ),
        (
            "def f(x):\n    a = {r for r in x}\n    b = {i: r for i, r in enumerate(x)}\n"
            "    return sum(r for r in x)\n",
            [
                ("set comprehension", 3, "f"),
                ("dict comprehension", 4, "f"),
                ("generator expression", 5, "f"),
            ],
        ),
        ("def f(x):\n    return list(map(torch.exp, x))\n", [("map", 3, "f")]),
        ("def f(x):\n    return list(filter(None, x))\n", [("filter", 3, "f")]),
        (
            "import functools\ndef f(x):\n    return functools.reduce(torch.add, x)\n",
            [("functools.reduce", 4, "f")],
        ),
        (
            "from functools import reduce as r\ndef f(x):\n    return r(torch.add, x)\n",
            [("functools.reduce", 4, "f")],
        ),
        (
            "import itertools\ndef f(x):\n    return list(itertools.accumulate(x))\n",
            [("itertools.accumulate", 4, "f")],
        ),
        (
            "from itertools import starmap\ndef f(x):\n    return starmap(torch.add, x)\n",
            [("itertools.starmap", 4, "f")],
        ),
        (
            "def f(x):\n    m = map\n    return list(m(torch.exp, x))\n",
            [("map", 3, "f"), ("map", 4, "f")],
        ),
        ("def f(x):\n    return list(iter(lambda: 1, 1))\n", [("iter(f, sentinel)", 3, "f")]),
        ("def f(x):\n    yield from x\n", [("yield from", 3, "f")]),
        (
            # list(K(x)) calls __getitem__ until IndexError: a loop with no loop in the source.
            "class K:\n    def __init__(self, x):\n        self.x = x\n"
            "    def __getitem__(self, i):\n        return self.x[i] * 2\n"
            "def f(x):\n    return torch.stack(list(K(x)))\n",
            [("iteration protocol", 5, "K")],
        ),
    ],
)
def test_every_kind_of_loop(body, expected):
    assert loops(body) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "def f(x):\n    return x if x.numel() == 1 else f(x[1:])\n",
            [("recursion", 3, "f", "f -> f")],
        ),
        (
            "def g(x):\n    return f(x[1:]) if len(x) else x\ndef f(x):\n    return g(x)\n",
            [("recursion", 3, "g", "g -> f -> g")],
        ),
        (
            "class K:\n    def run(self, x):\n        return self.run(x[1:]) if len(x) else x\n"
            "def f(x):\n    return K().run(x)\n",
            [("recursion", 4, "K.run", "K.run -> K.run")],
        ),
    ],
)
def test_recursion(body, expected):
    found = loops_in("import torch\n" + body, "f")
    assert [(x.kind, x.line, x.function, x.detail) for x in found] == expected


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("def h(x):\n    return [r for r in x]\ndef f(x):\n    return h(x)\n", (3, "h")),
        (
            "def f(x):\n    def inner(y):\n        for r in y:\n            pass\n    return inner(x)\n",
            (4, "inner in f"),
        ),
        (
            "def f(x):\n    g = lambda y: [r for r in y]\n    return g(x)\n",
            (3, "<lambda> (line 3) in f"),
        ),
        (
            "def f(x):\n    return apply(lambda y: [r for r in y], x)\n"
            "def apply(fn, x):\n    return fn(x)\n",
            (3, "<lambda> (line 3) in f"),
        ),
        (
            "class K:\n    def m(self, x):\n        for r in x:\n            pass\n"
            "def f(x):\n    return K\n",
            (4, "K.m"),
        ),
        (
            "def deco(fn):\n    def w(x):\n        for r in x: pass\n        return fn(x)\n"
            "    return w\n@deco\ndef f(x):\n    return x\n",
            (4, "w in deco"),
        ),
        ("def h(y):\n    for r in y: pass\ndef f(x, op=h):\n    return op(x)\n", (3, "h")),
        (
            "import functools\ndef h(y):\n    for r in y: pass\n"
            "def f(x):\n    return functools.partial(h)(x)\n",
            (4, "h"),
        ),
        (
            "def h(y):\n    for r in y: pass\nOPS = {'h': h}\ndef f(x):\n    return OPS['h'](x)\n",
            (3, "h"),
        ),
        (
            "def h(y):\n    for r in y: pass\ndef f(x):\n    return list(map(h, [x]))\n",
            (3, "h"),
        ),
        (
            "def setup():\n    global H\n    H = lambda x: [r for r in x]\ndef f(x):\n    return H(x)\n",
            (4, "<lambda> (line 4) in setup"),
        ),
        (
            "class Base:\n    def m(self, x):\n        for r in x: pass\n"
            "class K(Base):\n    pass\ndef f(x):\n    return K().m(x)\n",
            (4, "Base.m"),
        ),
        (
            # The learner's module imported under its own name.
            "import submission\ndef h(x):\n    return [r for r in x]\n"
            "def f(x):\n    return submission.h(x)\n",
            (4, "h"),
        ),
    ],
)
def test_loops_in_reachable_code_say_where(body, where):
    found = loops_in("import torch\n" + body, "f")
    assert (found[0].line, found[0].function) == where


@pytest.mark.parametrize(
    "body",
    [
        "TABLE = [i * i for i in range(10)]\ndef f(x):\n    return x * TABLE[2]\n",
        "def h(x):\n    return [r for r in x]\ndef f(x):\n    return x\n",  # never reached
        "class K:\n    T = [i for i in range(3)]\ndef f(x):\n    return K.T\n",  # runs at import
        "for i in range(3):\n    pass\ndef f(x):\n    return x\n",
        "def f(x):\n    y = 1\n    return x * y\n",
        "def f(x, y):\n    return (x[:, None, :] - x[None, :, :]).pow(2).sum(-1).sqrt()\n",
    ],
)
def test_no_loops(body):
    assert loops(body) == []


def test_code_changed_at_run_time_cannot_be_ruled_out():
    swapped = (
        "def evil(x):\n    return [r for r in x]\ndef f(x):\n    return x\n"
        "f.__code__ = evil.__code__\n"
    )
    assert loops(swapped) == [("computed name", 6, "module-level code")]
    traced = "import sys\ndef t(*a):\n    return t\nsys.settrace(t)\ndef f(x):\n    return x\n"
    assert loops(traced) == [("computed name", 5, "module-level code")]
    setattr_code = "def f(x):\n    return x\nsetattr(f, '__defaults__', (1,))\n"
    assert loops(setattr_code) == [("computed name", 4, "module-level code")]


def test_code_reached_through_strings_cannot_be_ruled_out():
    body = "import builtins\ndef f(x, n='map'):\n    return getattr(builtins, n)(torch.exp, x)\n"
    assert loops(body) == [("computed name", 4, "f")]
    body = "exec('def g(x): return [r for r in x]')\ndef f(x):\n    return x\n"
    assert loops(body) == [("computed name", 2, "module-level code")]


HILLIS_STEELE = """
def f(x):
    n = x.shape[0]
    step = 1
    while step < n:
        x = x + torch.nn.functional.pad(x[:-step], (0, 0, step, 0))
        step *= 2
    return x
"""


def test_logarithmic_growth_allows_doubling_loops():
    assert loops(HILLIS_STEELE) == [("while loop", 6, "f")]
    assert loops(HILLIS_STEELE, growth="logarithmic") == []
    allowed = [
        "def f(x):\n    for k in range(x.shape[0].bit_length()):\n        x = x + x\n    return x\n",
        "import math\ndef f(x):\n    for k in range(math.ceil(math.log2(x.shape[0]))):\n"
        "        x = x + x\n    return x\n",
        "def f(x):\n    s = 1\n    while s < len(x):\n        s <<= 1\n",
        "def f(x):\n    s = 1\n    while s < len(x):\n        s = 2 * s\n",
        "def f(x):\n    n = len(x)\n    while n > 1:\n        n //= 2\n",
        "def f(x):\n    for s in (1, 2, 4):\n        x = x + x\n",
        # the shifted copy written through a slice that reads the step (Hillis-Steele)
        "def f(x):\n    s = 1\n    while s < x.shape[1]:\n        y = torch.zeros_like(x)\n"
        "        y[:, s:] = x[:, :-s]\n        x = x + y\n        s *= 2\n    return x\n",
    ]
    for body in allowed:
        assert loops(body, growth="logarithmic") == [], body


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    i = 0\n    while i < x.shape[0]:\n        i += 1\n    return x\n",
        "def f(x):\n    for i in range(x.shape[0]):\n        pass\n",
        "def f(x):\n    s = 1\n    while s < len(x):\n        s *= 2\n        s -= 1\n",
        "def f(x):\n    while True:\n        break\n",
        "def f(x):\n    s = 1\n    while s < len(x):\n        s, t = s * 2, 0\n",
        "def f(x):\n    s = 1\n    while s < len(x):\n        [s, *t] = [s + 1]\n",
        "def f(x):\n    return [r for r in x]\n",
        "def f(x):\n    return f(x[1:]) if len(x) > 1 else x\n",
    ],
)
def test_logarithmic_growth_still_fails_other_loops(body):
    assert loops(body, growth="logarithmic")


def test_unknown_growth_is_an_author_error():
    with pytest.raises(ValueError):
        loops_in("def f(x):\n    return x\n", "f", "quadratic")


def test_reach():
    source = "import torch\n" + (
        "class K:\n    def m(self):\n        return helper()\n"
        "def helper():\n    return 1\n"
        "def unused():\n    return 2\n"
        "def f(x, op=lambda y: y):\n    return K\n"
    )
    found = reach(source, "f")
    assert found.defined
    names = {s.name for s in found.scopes}
    assert {"f", "K", "K.m", "helper"} <= names
    assert "unused" not in names
    assert not reach(source, "missing").defined


def test_exercises_with_loop_checks_have_loop_free_solutions():
    for exercise, function in [("04", "pick"), ("07", "pairwise_distance")]:
        path = ROOT / "solutions" / f"exercise-{exercise}" / f"exercise-{exercise}.py"
        analysis = Analysis(path.read_text(encoding="utf-8"))
        assert loops_in(analysis, function) == []


# -- callables handed to code that may call them per element (analysis/callbacks.py) ---------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PRELUDE = """import functools, heapq, itertools, math, operator, re
import numpy as np
import torch
from heapq import nsmallest as pick_smallest
import somelib as some  # a library the grader knows nothing about
def k(r):
    return r * 2
def k2(a, r):
    return r * a
class Box:
    def k(self, r):
        return r * 2
    def __call__(self, r):
        return r * 2
"""
# (setup lines inside f, the expression for the callable)
_CALLABLES = [
    ("", "lambda r: r * 2"),
    ("", "k"),
    ("g = k\n", "g"),
    ("", "functools.partial(k2, 2)"),
    ("p = functools.partial(k2, 2)\n", "p"),
    ("", "Box().k"),
    ("", "Box()"),
    ("", "math.exp"),
    ("", "operator.itemgetter(0)"),
    ("ops = [k]\n", "ops[0]"),
    ("table = {'f': lambda r: r}\n", "table['f']"),
    ("h = (lambda r: r) if x.numel() else k\n", "h"),
]
# a higher-order call, with {f} where the callable goes
_HIGHER_ORDER = [
    "sorted(x, key={f})",
    "sorted(x, **{{'key': {f}}})",
    "min(x, key={f})",
    "max(x, default=None, key={f})",
    "heapq.nsmallest(2, x, key={f})",
    "pick_smallest(2, x, {f})",
    "list(x).sort(key={f})",
    "re.sub('a', {f}, 'abc')",
    "x.clone().apply_({f})",
    "torch.Tensor.apply_(x.clone(), {f})",
    "x.clone().map_(x, {f})",
    "np.vectorize({f})(x.numpy())",
    "np.apply_along_axis({f}, 0, x.numpy())",
    "functools.reduce({f}, x)",
    "itertools.accumulate(x, {f})",
    "operator.methodcaller('apply_', {f})(x)",
    "functools.partial(sorted, key={f})(x)",
    "torch.autograd.functional.jacobian({f}, x)",
    "some.library.call(*[{f}], x)",
]


def _handed(setup: str, call: str) -> str:
    body = "".join(f"    {line}\n" for line in setup.splitlines())
    return _PRELUDE + "def f(x):\n" + body + f"    return {call}\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    callable_=st.sampled_from(_CALLABLES),
    template=st.sampled_from(_HIGHER_ORDER),
    alias=st.booleans(),
)
def test_a_callable_handed_to_a_higher_order_call_is_a_loop(callable_, template, alias):
    """Whatever the callable (lambda, def, alias, partial, bound method, callable instance,
    builtin, element of a container), wherever it goes (keyword, position, ``*``/``**``) and
    whatever it is handed to, the call counts as a loop unless it is known to vectorise."""
    setup, spelled = callable_
    if alias:  # the callable through one more name
        setup += f"alias_of_it = {spelled}\n"
        spelled = "alias_of_it"
    source = _handed(setup, template.format(f=spelled))
    found = loops_in(source, "f")
    assert found, source
    assert {loop.function for loop in found} <= {"f", "k", "k2", "Box.k", "Box.__call__"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    callable_=st.sampled_from([c for c in _CALLABLES if c[1] not in ("math.exp",)]),
    template=st.sampled_from(
        [
            "torch.vmap({f})(x)",
            "torch.func.vmap({f}, in_dims=0)(x)",
            "torch.func.grad({f})(x)",
            "torch.compile({f})(x)",
            "isinstance({f}, type)",
        ]
    ),
)
def test_a_callable_handed_to_a_vectorising_call_is_not_a_loop(callable_, template):
    setup, spelled = callable_
    source = _handed(setup, template.format(f=spelled))
    assert loops_in(source, "f") == [], source


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    argument=st.sampled_from(
        [
            "x.shape",
            "x.dtype",
            "x.device",
            "torch.float32",
            "x.shape[0]",
            "*x.shape",
            "float",
            "np.float32",
            "x.T",
            "x.grad",
            "2",
            "'mean'",
            "[x, x]",
            "x.sum(dim=0)",
        ]
    ),
    call=st.sampled_from(
        ["torch.zeros({a})", "x.to({a})", "some.library.call({a})", "x.new_zeros({a})"]
    ),
)
def test_tensor_data_handed_on_is_not_a_callable(argument, call):
    """Shapes, dtypes, devices, numbers and tensors handed to any call are data, not loops."""
    source = _handed("", call.format(a=argument))
    assert loops_in(source, "f") == [], source


def test_a_function_handed_to_sorted_is_named_in_the_message():
    from grader.testing import checks

    source = "import torch\ndef f(x):\n    return torch.stack(sorted(x, key=lambda r: r.sum()))\n"
    with pytest.raises(checks.CheckFailed) as raised:
        checks.assert_no_loops(source, "f")
    assert "handed to sorted(...)" in str(raised.value)
