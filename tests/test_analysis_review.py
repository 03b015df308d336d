"""review(): submissions that reach into the grader or torch internals, and nothing else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from grader.testing.analysis import Analysis, Finding, review
from grader.testing.analysis.core import computed_uses
from tests.conftest import ROOT

HOSTILE = ROOT / "tests" / "fixtures" / "submissions" / "analysis"
HONEST = sorted(
    {
        *ROOT.glob("solutions/**/*.py"),
        *ROOT.glob("exercises/*/exercise-*.py"),
        *ROOT.glob("exercises/*/alternatives/*.py"),
        *ROOT.glob("exercises/*/mutants/*.py"),
        *ROOT.glob("examples/**/*.py"),
    }
)


def kinds(source: str) -> set[str]:
    return {f.kind for f in review(source)}


def test_there_are_honest_files():
    assert len(HONEST) > 200


@pytest.mark.parametrize("path", HONEST, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_findings_on_honest_code(path: Path):
    # Every reference solution, starter, alternative and mutant: if one is flagged, the rule
    # that flags it is too broad.
    assert review(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "path", [p for p in HONEST if "solutions" in p.parts], ids=lambda p: p.parent.name
)
def test_no_findings_on_honest_code_with_debug_prints(path: Path):
    # What a learner leaves in (prints of tensors, of every function's arguments, a warning)
    # must not make correct code "reach into the grader" (tests/differential.py adds it).
    from tests.differential import with_prints

    assert review(with_prints(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("path", HONEST, ids=lambda p: str(p.relative_to(ROOT)))
def test_honest_code_never_fails_closed(path: Path):
    # The loop and forbidden checks fail on code they cannot see through (computed names,
    # code changed at run time, undefined globals): honest files have none of it.
    text = path.read_text(encoding="utf-8")
    analysis = Analysis(text)
    assert analysis.ok
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            assert computed_uses(analysis, node.name) == [], node.name


def _hostile() -> list[Path]:
    return sorted(HOSTILE.glob("*.py"))


@pytest.mark.parametrize("path", _hostile(), ids=lambda p: p.name)
def test_hostile_fixture_gets_exactly_its_kinds(path: Path):
    text = path.read_text(encoding="utf-8")
    header = re.match(r"# review: (.*)", text)
    assert header, f"{path.name} must start with '# review: kind, kind'"
    expected = {k.strip() for k in header.group(1).split(",")}
    assert kinds(text) == expected


def test_every_kind_has_a_hostile_fixture():
    covered = set()
    for path in _hostile():
        covered |= {
            k.strip() for k in re.match(r"# review: (.*)", path.read_text()).group(1).split(",")
        }
    assert covered >= {
        "grader",
        "sys_modules",
        "gc",
        "frames",
        "private_torch",
        "computed_access",
        "dynamic_code",
        "builtins",
        "monkeypatch",
        "ctypes",
        "process",
        "torch_override",
    }


def test_findings_have_lines_and_both_languages():
    findings = review((HOSTILE / "frames_getframe.py").read_text())
    lines = {f.line for f in findings}
    assert {3, 7, 8, 10} <= lines  # the import, _getframe, f_back.f_globals, f_locals
    for finding in findings:
        assert isinstance(finding, Finding)
        assert finding.en and finding.zh and finding.en != finding.zh
        assert finding.to_dict() == {
            "kind": finding.kind,
            "line": finding.line,
            "en": finding.en,
            "zh": finding.zh,
        }


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("import grader\n", "grader"),
        ("from grader.sandbox import child\n", "grader"),
        ("import importlib\nm = importlib.import_module('grader.results')\n", "grader"),
        ("import sys\nsys.modules['torch'] = None\n", "sys_modules"),
        ("from sys import modules\n", "sys_modules"),
        ("import gc\n", "gc"),
        ("def f():\n    import inspect\n    return inspect.currentframe()\n", "frames"),
        ("import sys as s\nf = s._getframe\n", "frames"),
        ("def f(g):\n    return g.f_back\n", "frames"),
        ("def f(g):\n    return g.cr_frame\n", "frames"),
        ("import torch\nx = torch._C\n", "private_torch"),
        ("import torch.nn.functional as F\nF._verify_batch_size\n", "private_torch"),
        ("from torch import _C\n", "private_torch"),
        ("def f(t):\n    return t._version\n", "private_torch"),
        ("import torch\ngetattr(torch, '_C')\n", "private_torch"),
        ("import torch\ndef f(n):\n    return getattr(torch, n)\n", "computed_access"),
        ("def f(o, n):\n    setattr(o, n, 1)\n", "computed_access"),
        ("def f(o, n):\n    delattr(o, n)\n", "computed_access"),
        ("def f(n):\n    return __import__(n)\n", "computed_access"),
        ("import operator\ndef f(n):\n    return operator.attrgetter(n)\n", "computed_access"),
        ("def f(s):\n    return eval(s)\n", "dynamic_code"),
        ("run = exec\n", "dynamic_code"),
        ("def f():\n    return globals()\n", "dynamic_code"),
        ("print(locals())\n", "dynamic_code"),  # at module level: the globals
        ("def f(m):\n    return vars(m)\n", "dynamic_code"),
        ("import torch\ndef f():\n    vars(torch)['allclose'] = None\n", "monkeypatch"),
        ("import torch\ntorch.__dict__['allclose'] = None\n", "monkeypatch"),
        ("import builtins\n", "builtins"),
        ("__builtins__.len = None\n", "builtins"),
        ("import torch\ntorch.allclose = None\n", "monkeypatch"),
        ("import numpy as np\nnp.random.seed = None\n", "monkeypatch"),
        ("import torch\nsetattr(torch, 'equal', None)\n", "monkeypatch"),
        ("import torch\ndel torch.isclose\n", "monkeypatch"),
        ("from torch import Tensor\nTensor.__eq__ = None\n", "monkeypatch"),
        ("import torch\nfor torch.x in [1]:\n    pass\n", "monkeypatch"),
        # near the documented reproducibility switches, but not one of them
        ("import torch\ntorch.backends.cudnn.is_available = None\n", "monkeypatch"),
        ("import torch\ndel torch.backends.cudnn.deterministic\n", "monkeypatch"),
        ("import torch\ntorch.backends.deterministic = True\n", "monkeypatch"),
        ("import torch\ntorch.deterministic = True\n", "monkeypatch"),
        ("import ctypes\n", "ctypes"),
        ("from cffi import FFI\n", "ctypes"),
        ("import os\nos.fork()\n", "process"),
        ("from os import kill\n", "process"),
        ("import os\nos.execv('/bin/true', [])\n", "process"),
        ("import signal\nsignal.alarm(0)\n", "process"),
        ("import sys\nsys.settrace(None)\n", "process"),
        ("import subprocess\n", "process"),
        ("import atexit\natexit.register(print)\n", "process"),
        ("def f(:\n", "unanalysable"),
        ("x = 1\x00\n", "unanalysable"),
    ],
)
def test_each_kind(source, kind):
    assert kind in kinds(source)


@pytest.mark.parametrize(
    "source",
    [
        # Ordinary code that looks a little like the above.
        "import torch\nx = torch.zeros(3)\nx.requires_grad_(True)\nw = x.grad\n",
        "import torch\nfrom torch.utils._pytree import tree_map\n",
        "import torch\nprint(torch.__version__)\n",
        "class Model:\n    def __init__(self):\n        self._cache = {}\n    def get(self):\n        return self._cache\n",
        "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self._w = torch.nn.Parameter(torch.ones(1))\n",
        "def f(x):\n    return getattr(x, 'shape')\n",
        "def f(model):\n    model.eval()\n    model.weight.data = model.weight.data * 2\n    return model\n",
        "import os\npath = os.path.join('a', 'b')\n",
        "import sys\nprint(sys.version)\n",
        "def f(x):\n    _, idx = x.max(1)\n    return idx\n",
        "import random\nrandom.seed(0)\n",
        "import numpy as np\nnp.random.seed(0)\n",
        # a function's own locals, printed while debugging: nothing it does not already name
        "def f(x, y):\n    print(list(locals().values()))\n    return x + y\n",
        "def f(x):\n    print(vars())\n    return x\n",
        "d = {}\nd['a'] = 1\n",
        # the reproducibility recipe's documented switches, however the module is named
        "import torch\ntorch.backends.cudnn.deterministic = True\n"
        "torch.backends.cudnn.benchmark = False\n",
        "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\n",
        "from torch.backends import cudnn\ndef set_seed(s):\n    cudnn.benchmark = False\n",
        "import torch as T\nT.backends.cuda.matmul.allow_tf32 = False\n"
        "T.backends.cudnn.allow_tf32 = False\nT.backends.cudnn.enabled = True\n",
    ],
)
def test_ordinary_code_has_no_findings(source):
    assert review(source) == []


def test_adversarial_submissions_are_flagged():
    # The attacks of tests/adversarial that reach into the process (the others: memory,
    # output, files, network, are the sandbox's business).
    folder = ROOT / "tests" / "adversarial" / "submissions"
    expected = {
        "gc_and_inspect.py": {"gc", "frames"},
        "patch_grader_codec.py": {"grader", "sys_modules", "monkeypatch"},
        "patch_pytest.py": {"monkeypatch"},
        "replace_builtins.py": {"builtins"},
        "replace_comparisons.py": {"monkeypatch"},
        "disable_timeouts.py": {"process"},
        "kill_parent.py": {"process"},
        "fork_bomb.py": {"process"},
        "ptrace_the_grader.py": {"ctypes"},
    }
    for name, wanted in expected.items():
        assert wanted <= kinds((folder / name).read_text()), name
