"""Forbidden APIs matched by what names resolve to, and one canonical key per operation."""

from __future__ import annotations

import pytest

from grader.testing.analysis import canonical_op, covers, forbidden_uses, is_aten, matches


def uses(body: str, names=("softmax",), function="f", graded=()):
    source = "import torch\n" + body
    return [
        (u.name, u.line, u.function, u.computed)
        for u in forbidden_uses(source, function, list(names), graded)
    ]


def resolved(body: str, names=("softmax",)) -> set[str]:
    return {name for name, _, _, computed in uses(body, names) if not computed}


def computed(body: str, names=("softmax",)) -> list[int]:
    return [line for _, line, _, is_computed in uses(body, names) if is_computed]


# Every spelling of softmax the security review listed, each as the learner could write it.
SPELLINGS = {
    "torch.softmax": "def f(x):\n    return torch.softmax(x, 1)\n",
    "F alias": "import torch.nn.functional as F\ndef f(x):\n    return F.softmax(x, 1)\n",
    "from torch.nn import functional": (
        "from torch.nn import functional\ndef f(x):\n    return functional.softmax(x, 1)\n"
    ),
    "from torch import softmax as s": "from torch import softmax as s\ndef f(x):\n    return s(x, 1)\n",
    "method": "def f(x):\n    return x.softmax(1)\n",
    "Tensor.softmax": "def f(x):\n    return torch.Tensor.softmax(x, 1)\n",
    "from torch import Tensor": "from torch import Tensor\ndef f(x):\n    return Tensor.softmax(x, 1)\n",
    "torch.special": "def f(x):\n    return torch.special.softmax(x, 1)\n",
    "torch._softmax": "def f(x):\n    return torch._softmax(x, 1, False)\n",
    "torch._C._nn": "def f(x):\n    return torch._C._nn.softmax(x, 1)\n",
    "_VariableFunctions": "def f(x):\n    return torch._C._VariableFunctions.softmax(x, 1)\n",
    "an alias": "def f(x):\n    sm = torch.softmax\n    return sm(x, 1)\n",
    "a module alias": "nnf = torch.nn.functional\ndef f(x):\n    return nnf.softmax(x, 1)\n",
    "getattr, literal": "def f(x):\n    return getattr(torch, 'softmax')(x, 1)\n",
    "__dict__, literal": "def f(x):\n    return torch.__dict__['softmax'](x, 1)\n",
    "vars, literal": "def f(x):\n    return vars(torch)['softmax'](x, 1)\n",
    "import_module, literal": (
        "import importlib\n"
        "def f(x):\n    return importlib.import_module('torch.nn.functional').softmax(x, 1)\n"
    ),
    "nn.Softmax": "from torch import nn\ndef f(x):\n    return nn.Softmax(dim=1)(x)\n",
    "a star import": "from torch.nn.functional import *\ndef f(x):\n    return softmax(x, 1)\n",
    "fullwidth letters": "def f(x):\n    return torch.ｓｏｆｔｍａｘ(x, 1)\n",
    "functools.partial": (
        "import functools\ndef f(x):\n    return functools.partial(torch.softmax, dim=1)(x)\n"
    ),
    "a default argument": "def f(x, op=torch.softmax):\n    return op(x, 1)\n",
    "methodcaller": "import operator\ndef f(x):\n    return operator.methodcaller('softmax', 1)(x)\n",
}


@pytest.mark.parametrize("body", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_every_spelling_of_softmax_is_caught(body):
    assert resolved(body), body


def test_the_resolved_names_and_lines():
    assert uses(SPELLINGS["F alias"]) == [("torch.nn.functional.softmax", 4, "f", False)]
    assert uses(SPELLINGS["from torch import softmax as s"]) == [
        ("torch.softmax", 2, None, False),  # the import itself
        ("torch.softmax", 4, "f", False),
    ]
    assert uses(SPELLINGS["method"]) == [("x.softmax", 3, "f", False)]
    assert uses(SPELLINGS["getattr, literal"]) == [("torch.softmax", 3, "f", False)]
    assert uses(SPELLINGS["nn.Softmax"]) == [("torch.nn.Softmax", 4, "f", False)]


@pytest.mark.parametrize(
    "body",
    [
        "def f(x, n='soft' + 'max'):\n    return getattr(torch, n)(x, 1)\n",
        "def f(x, n='torch'):\n    return __import__(n).softmax(x, 1)\n",
        "import importlib\ndef f(x, n='torch'):\n    return importlib.import_module(n).exp(x)\n",
        "def f(x, n='softmax'):\n    return torch.__dict__[n](x, 1)\n",
        "import operator\ndef f(x, n='softmax'):\n    return operator.methodcaller(n, 1)(x)\n",
        "def f(x):\n    return eval('torch.soft' + 'max(x, 1)')\n",
        "import pickle\ndef f(x, data=b''):\n    return pickle.loads(data)(x, 1)\n",
        "import types\ndef f(x, code=None):\n    return types.FunctionType(code, {})(x)\n",
        "def f(x):\n    return globals()['tor' + 'ch'].exp(x)\n",
        "import sys\ndef f(x, n='torch'):\n    return sys.modules[n].exp(x)\n",
        # Changing an imported module changes what names mean.
        "torch.exp = torch.special.expit\ndef f(x):\n    return torch.exp(x)\n",
        "setattr(torch, 'exp', None)\ndef f(x):\n    return torch.exp(x)\n",
        # A global the file never binds can only have been injected (builtins, globals()).
        "def f(x):\n    return helper(x, 1)\n",
    ],
)
def test_what_cannot_be_ruled_out_counts_as_a_use(body):
    assert computed(body)


def test_computed_names_count_only_where_there_are_rules():
    body = "def f(x, n='exp'):\n    return getattr(torch, n)(x)\n"
    assert uses(body, names=()) == []


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    return torch.log_softmax(x, 1).exp()\n",  # another rule's business
        "def softmax(x):\n    return x.exp() / x.exp().sum(1, keepdim=True)\n"
        "def f(x):\n    return softmax(x)\n",  # the learner's own softmax
        "class K:\n    def softmax(self, x):\n        return x\n"
        "    def run(self, x):\n        return self.softmax(x)\n"
        "def f(x):\n    return K().run(x)\n",  # a method of the learner's own class
        "def f(x):\n    e = (x - x.max(1, keepdim=True).values).exp()\n"
        "    return e / e.sum(1, keepdim=True)\n",
        "def f(x):\n    softmax = x.exp()\n    return softmax / softmax.sum(1, keepdim=True)\n",
        "def f(x):\n    return torch.logsumexp(x, 1)\n",
        "def f(x):\n    return getattr(x, 'shape')\n",
        # Names Python provides without a binding in the file.
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        return super().forward(x), __class__, __debug__, __name__, NotImplemented\n"
        "def f(x):\n    return M()(x)\n",
        "from torch.nn.functional import *\ndef f(x):\n    return relu(x)\n",
        "def f(x: 'Tensor') -> 'Tensor':\n    y: Undefined = x\n    return y\n",
    ],
)
def test_honest_code_is_not_flagged(body):
    assert uses(body) == []


def test_helpers_count_and_other_graded_functions_do_not():
    body = (
        "def helper(x):\n    return torch.softmax(x, 1)\n"
        "def other(x):\n    return torch.softmax(x, 0)\n"
        "def f(x):\n    return x\n"
    )
    found = uses(body, graded=("f", "other"))
    assert [(name, line, fn) for name, line, fn, _ in found] == [
        ("torch.softmax", 3, "helper", False)[:3]
    ]
    # ...unless the graded function calls the other one.
    calls = body.replace("    return x\n", "    return other(x)\n")
    assert ("torch.softmax", 5, "other", False) in uses(calls, graded=("f", "other"))


def test_reachable_helpers_lambdas_and_decorators():
    lambdas = "OPS = {'s': lambda x: torch.softmax(x, 1)}\ndef f(x):\n    return OPS['s'](x)\n"
    assert uses(lambdas) == [("torch.softmax", 2, "<lambda> (line 2)", False)]
    decorated = (
        "def deco(fn):\n    return lambda x: torch.softmax(x, 1)\n@deco\ndef f(x):\n    return x\n"
    )
    assert uses(decorated) == [("torch.softmax", 3, "<lambda> (line 3) in deco", False)]


def test_in_place_forms_are_covered_by_the_bare_name():
    body = "def f(x):\n    return x.cumsum_(0) + torch.cumsum(x, 0) + x.cumsum(0)\n"
    assert resolved(body, ["cumsum"]) == {"torch.cumsum", "x.cumsum", "x.cumsum_"}


def test_a_group_of_names():
    body = "def f(x):\n    return torch.softmax(x, 1) + torch.log_softmax(x, 1) + x.softmin(1)\n"
    found = forbidden_uses("import torch\n" + body, "f", ["softmax", "log_softmax", "softmin"])
    assert {(u.name, u.rule) for u in found} == {
        ("torch.softmax", "softmax"),
        ("torch.log_softmax", "log_softmax"),
        ("x.softmin", "softmin"),
    }


def test_dotted_rules_cover_what_resolves_to_them():
    optim = (
        "from torch import optim\nfrom torch.optim.sgd import SGD as S\nimport torch.optim as o\n"
        "def f(m):\n    return o.Adam(m.parameters()), S, torch.optim.lr_scheduler\n"
    )
    assert resolved(optim, ["torch.optim"]) == {
        "torch.optim",
        "torch.optim.sgd.SGD",
        "torch.optim.Adam",
        "torch.optim.lr_scheduler",
    }
    linear = (
        "from torch.nn.modules.linear import Linear\nfrom torch import nn\n"
        "def f(m):\n    return Linear(1, 1), nn.LazyLinear(1), torch.nn.modules.Linear\n"
    )
    assert resolved(linear, ["nn.Linear"]) == {
        "torch.nn.modules.linear.Linear",
        "torch.nn.modules.Linear",
    }  # LazyLinear is another class
    # A dotted rule naming a function forbids that function only.
    assert resolved("def f(x):\n    return x.softmax(1)\n", ["torch.softmax"]) == set()
    assert resolved("def f(x):\n    return torch.softmax(x, 1)\n", ["torch.softmax"])


# -- the canonical key ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("softmax", "softmax"),
        ("torch.softmax", "softmax"),
        ("Tensor.softmax", "softmax"),
        ("torch.nn.functional.softmax", "softmax"),
        ("torch.special.softmax", "softmax"),
        ("torch._softmax", "softmax"),
        ("aten._softmax.default", "softmax"),
        ("aten.softmax.int", "softmax"),
        ("aten::_softmax", "softmax"),
        ("torch.ops.aten._softmax.default", "softmax"),
        ("aten.special_softmax.default", "softmax"),
        ("aten._safe_softmax.default", "softmax"),
        ("aten._masked_softmax.default", "softmax"),
        ("nn.Softmax", "softmax"),
        ("aten._log_softmax.default", "logsoftmax"),
        ("log_softmax", "logsoftmax"),
        ("torch.nn.LogSoftmax", "logsoftmax"),
        ("aten.cumsum_.default", "cumsum"),
        ("Tensor.cumsum_", "cumsum"),
        ("torch._C._nn.linear", "linear"),
        ("nn.Linear", "linear"),
        ("nn.CrossEntropyLoss", "crossentropy"),
        ("torch.nn.functional.cross_entropy", "crossentropy"),
        ("nn.MSELoss", "mse"),
        ("mse_loss", "mse"),
        ("nn.BCELoss", "binarycrossentropy"),
        ("Tensor.__rmatmul__", "matmul"),
        ("Tensor.__imatmul__", "matmul"),
        ("Tensor.__truediv__", "div"),
        ("torch.true_divide", "div"),
        ("torch.concat", "cat"),
        ("torch.special.expit", "sigmoid"),
        ("nn.ReLU", "relu"),
        ("torch.relu_", "relu"),
        ("torch.linalg.norm", "norm"),
    ],
)
def test_canonical_op(name, key):
    assert canonical_op(name) == key


def test_covers_backward_operators_but_not_neighbours():
    assert covers("softmax", "aten._softmax_backward_data.default")
    assert covers("cumsum", "x.cumsum_")
    assert not covers("softmax", "aten._log_softmax.default")
    assert not covers("softmax", "torch.softmin")
    assert not covers("exp", "torch.expm1")
    assert is_aten("aten._softmax.default") and is_aten("aten::add") and not is_aten("torch.add")


@pytest.mark.parametrize(
    ("traced", "rule", "expected"),
    [
        # Names as the learner-side TorchFunctionMode and TorchDispatchMode report them.
        ("torch.softmax", "softmax", True),
        ("Tensor.softmax", "softmax", True),
        ("torch.nn.functional.softmax", "softmax", True),
        ("aten._softmax.default", "softmax", True),
        ("aten._log_softmax.default", "softmax", False),
        ("aten._log_softmax.default", "log_softmax", True),
        ("Tensor.cumsum_", "cumsum", True),
        ("torch._C._nn.linear", "linear", True),
        ("torch._C._nn.linear", "nn.Linear", False),  # the functional form, not the module
        ("torch.nn.functional.softmax", "F.softmax", True),
        ("torch.softmax", "F.softmax", False),
        ("torch.logsumexp", "softmax", False),
    ],
)
def test_matches_traced_names(traced, rule, expected):
    assert matches(traced, rule) is expected
