"""Submissions that reach into the grader or into torch's internals: a "needs review" list.

:func:`review` reads the whole file (never imports it) and reports what honest solutions of
these exercises never do, each with its line and a short message in English and Chinese:

======================  ========================================================================
kind                    what
======================  ========================================================================
``grader``              imports or reaches the grader's own modules (``grader``, ``grader.*``)
``sys_modules``         ``sys.modules``
``gc``                  the garbage collector (``gc``): it finds any live object
``frames``              interpreter frames and code objects: ``inspect``, ``sys._getframe``,
                        ``traceback.walk_stack``, ``f_back``, ``f_globals``, ``f_locals``,
                        ``tb_frame``, ``gi_frame``, ``__code__``, ``__globals__``, ``__closure__``
``private_torch``       private torch APIs: ``torch._C``, any ``_``-prefixed attribute of torch,
                        a torch module, a tensor or a module (not dunders such as
                        ``__version__``; ``torch.utils._pytree`` is allowed)
``computed_access``     ``getattr``/``setattr``/``delattr``/``__import__``/
                        ``importlib.import_module``/``operator.attrgetter`` with a computed name
``dynamic_code``        ``eval``, ``exec``, ``compile``, ``globals()``, ``locals()``, ``vars()``
``builtins``            the ``builtins`` module or ``__builtins__``
``monkeypatch``         assigning or deleting an attribute of an imported module or of
                        something in it (``torch.allclose = ...``, ``np.random.seed = ...``,
                        ``setattr(torch, ...)``, ``torch.Tensor.__eq__ = ...``)
``ctypes``              ``ctypes``, ``_ctypes``, ``cffi``
``torch_override``      intercepting torch calls: ``torch.overrides`` (``TorchFunctionMode``), a
                        class defining ``__torch_function__`` or ``__torch_dispatch__``
``process``             processes, signals and tracing: ``os.fork``, ``os.kill``, ``os._exit``,
                        ``os.system``, ``subprocess``, ``signal.signal``/``setitimer``/``alarm``,
                        ``sys.settrace``, ``sys.setprofile``, ``threading.settrace``, ``atexit``
``unanalysable``        the file cannot be analysed at all (a syntax error, nesting too deep)
======================  ========================================================================

Names are resolved as the checks resolve them (``import sys as s; s._getframe``,
``from os import fork``, ``getattr(sys, "_getframe")`` are all found).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from grader.testing.analysis import dynamic, torchnames
from grader.testing.analysis.core import (
    Analysis,
    _module_changes,
    analyse,
    expressions,
    setter_calls,
)
from grader.testing.analysis.intake import Unanalysable
from grader.testing.analysis.model import COMPUTED, UNDEFINED, UNKNOWN, Model, Scope, spelling


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int
    en: str
    zh: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "line": self.line, "en": self.en, "zh": self.zh}


_FRAME_ATTRS = {
    "f_back",
    "f_globals",
    "f_locals",
    "f_builtins",
    "f_code",
    "tb_frame",
    "gi_frame",
    "cr_frame",
    "ag_frame",
    "__code__",
    "__globals__",
    "__closure__",
}
_FRAME_PATHS = {
    "sys._getframe",
    "sys._current_frames",
    "traceback.walk_stack",
    "traceback.walk_tb",
}
_PROCESS_PATHS = {
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "os._exit",
    "os.abort",
    "os.system",
    "os.popen",
    "os.setsid",
    "os.setpgrp",
    "os.setpgid",
    "os.posix_spawn",
    "os.posix_spawnp",
    "signal.signal",
    "signal.setitimer",
    "signal.alarm",
    "signal.pthread_kill",
    "signal.set_wakeup_fd",
    "signal.siginterrupt",
    "signal.pthread_sigmask",
    "signal.raise_signal",
    "sys.settrace",
    "sys.setprofile",
    "sys.addaudithook",
    "threading.settrace",
    "threading.setprofile",
    "threading.settrace_all_threads",
    "threading.setprofile_all_threads",
    "atexit.register",
    "resource.setrlimit",
}
_PROCESS_PREFIXES = ("os.exec", "os.spawn")
_PROCESS_MODULES = {"subprocess", "pty", "multiprocessing", "faulthandler"}
_CTYPES = {"ctypes", "_ctypes", "cffi"}
_ALLOWED_PRIVATE = ("torch.utils._pytree",)

# Words without which a block cannot contain any finding (attribute stores are found from the
# block's shape, underscore names are added per file).
_WORDS = frozenset(
    {
        "grader",
        "sys",
        "modules",
        "gc",
        "inspect",
        "traceback",
        "builtins",
        "__builtins__",
        "ctypes",
        "_ctypes",
        "cffi",
        "os",
        "signal",
        "threading",
        "atexit",
        "resource",
        "overrides",
        "__torch_function__",
        "__torch_dispatch__",
        "setattr",
        "delattr",
        "import",
        *_FRAME_ATTRS,
        *(p.rsplit(".", 1)[1] for p in _FRAME_PATHS | _PROCESS_PATHS),
        *_PROCESS_MODULES,
    }
    | dynamic.WORDS
)

_UNDERSCORED = re.compile(r"^_\w+", re.M)

_MESSAGES = {
    "grader": ("reaches into the grader's own code ({})", "触及评分器自身的代码（{}）"),
    "sys_modules": ("reads or changes sys.modules ({})", "读取或修改 sys.modules（{}）"),
    "gc": (
        "uses the garbage collector to reach live objects ({})",
        "借助垃圾回收器访问存活对象（{}）",
    ),
    "frames": ("reads interpreter frames or code objects ({})", "读取解释器栈帧或代码对象（{}）"),
    "private_torch": ("uses a private torch API ({})", "使用了 torch 的私有 API（{}）"),
    "computed_access": (
        "reaches an attribute or module through a computed name ({})",
        "通过计算出的名字访问属性或模块（{}）",
    ),
    "dynamic_code": ("runs or inspects code dynamically ({})", "动态执行或查看代码（{}）"),
    "builtins": (
        "uses or changes Python's builtins ({})",
        "使用或修改 Python 的内置命名空间（{}）",
    ),
    "monkeypatch": (
        "changes an imported module or something in it ({})",
        "修改了导入的模块或其中的对象（{}）",
    ),
    "ctypes": ("calls C code directly ({})", "直接调用 C 代码（{}）"),
    "torch_override": (
        "intercepts torch's own function calls ({})",
        "拦截 torch 自身的函数调用（{}）",
    ),
    "process": (
        "controls processes, signals or tracing ({})",
        "控制进程、信号或跟踪（{}）",
    ),
}


def review(source: str | bytes | Analysis) -> list[Finding]:
    """The findings of the whole file, sorted by line (empty for honest code)."""
    analysis = source if isinstance(source, Analysis) else analyse(source)
    try:
        with analysis.guard():
            findings = _review(analysis)
    except Unanalysable as exc:
        problem = exc.problem
        return [Finding("unanalysable", problem.line, problem.en, problem.zh)]
    return findings


def _review(analysis: Analysis) -> list[Finding]:
    model = analysis.require()
    model.ensure_mentioning(_WORDS)
    model.ensure(
        b
        for b in model.blocks
        if b.index not in model.parsed
        and any(_private_word(w) for w in _UNDERSCORED.findall(b.joined()))
    )
    model.ensure(b for b in model.blocks if b.attr_store)
    own = _own_attributes(model)
    found: dict[tuple[str, int, str], Finding] = {}

    def add(kind: str, node: ast.AST | _Line, detail: str) -> None:
        line = getattr(node, "lineno", 0)
        en, zh = _MESSAGES[kind]
        found.setdefault(
            (kind, line, detail), Finding(kind, line, en.format(detail), zh.format(detail))
        )

    for scope in list(model.scopes()):
        if scope.kind == "class":
            for method in ("__torch_function__", "__torch_dispatch__"):
                for site in scope.sites.get(method, []):
                    add("torch_override", site.node, f"{scope.name}.{method}")
        nodes = scope.nodes
        for node, values in expressions(model, nodes, scope):
            for kind, detail in _classify(model, node, values, scope, own):
                add(kind, node, detail)
        for node in nodes:
            for kind, detail in _node_findings(model, node, scope):
                add(kind, node, detail)
        for node, kind, detail in _setter_findings(model, nodes, scope):
            add(kind, node, detail)
        for use in _module_changes(model, nodes, scope):
            add("monkeypatch", _Line(use.line), use.spelled)
    return sorted(found.values(), key=lambda f: (f.line, f.kind, f.en))


@dataclass
class _Line:
    lineno: int


def _private_word(word: str) -> bool:
    return (
        word.startswith("_") and word != "_" and not (word.startswith("__") and word.endswith("__"))
    )


def _own_attributes(model: Model) -> set[str]:
    """Attribute names the learner's own code defines (methods, class attributes, and
    ``obj._x = ...``): a private name of the learner's own class is not torch's."""
    names: set[str] = set()
    for scope in model.scopes():
        if scope.kind == "class":
            names.update(scope.sites)
        for node in scope.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return names


def _classify(model: Model, node: ast.AST, values, scope: Scope, own: set[str]):
    shown = spelling(node)
    if isinstance(node, ast.Name):
        # A name is judged where its value is spelled out (the import, the attribute, the
        # call); a name of its own is only a builtin that runs code or reads namespaces.
        if values & (dynamic.CODE | dynamic.NAMESPACES):
            yield "dynamic_code", shown
        return
    for value in values:
        if not isinstance(value, str) or value in (UNKNOWN, UNDEFINED):
            continue
        if value == COMPUTED:
            kind = _computed_kind(model, node, scope)
            if kind:
                yield kind, shown
            continue
        parts = value.split(".")
        root = parts[0]
        if root == UNKNOWN:
            attrs = parts[1:]
            if _FRAME_ATTRS & set(attrs):
                yield "frames", shown
            if any(_private_tensor_attr(a) and a not in own for a in attrs):
                yield "private_torch", shown
            continue
        if root == "grader":
            yield "grader", value
        elif value.startswith("sys.modules"):
            yield "sys_modules", shown
        elif root == "gc":
            yield "gc", value
        elif root == "inspect" or value in _FRAME_PATHS or _FRAME_ATTRS & set(parts):
            yield "frames", value if root != UNKNOWN else shown
        elif root in _CTYPES:
            yield "ctypes", value
        elif (
            value in _PROCESS_PATHS
            or value.startswith(_PROCESS_PREFIXES)
            or root in _PROCESS_MODULES
        ):
            yield "process", value
        elif value == "builtins":
            yield "builtins", shown
        elif value.startswith("torch.overrides"):
            yield "torch_override", value
        elif root == "torch" and _private_torch(parts):
            yield "private_torch", value


def _computed_kind(model: Model, node: ast.AST, scope: Scope) -> str | None:
    if isinstance(node, ast.Call):
        funcs = {f for f in model.values(node.func, scope) if isinstance(f, str)}
        if funcs & dynamic.HOOKS:
            return "process"
        if funcs & (dynamic.CODE | dynamic.NAMESPACES):
            return "dynamic_code"
        return "computed_access"
    if isinstance(node, ast.Subscript):
        return "computed_access"
    return "dynamic_code"


def _node_findings(model: Model, node: ast.AST, scope: Scope):
    """What a single node shows: __builtins__, sys.modules reached through an attribute."""
    if isinstance(node, ast.Name) and node.id == "__builtins__":
        yield "builtins", "__builtins__"
    elif (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and "sys.modules" in model.values(node, scope)
    ):
        yield "sys_modules", spelling(node)


def _setter_findings(model: Model, nodes: list[ast.AST], scope: Scope):
    """setattr/delattr with a computed name, or on a frame attribute."""
    for call in setter_calls(model, nodes, scope):
        name = call.args[1] if len(call.args) > 1 else None
        if dynamic.literal(name) is None:
            yield call, "computed_access", spelling(call)
        elif dynamic.literal(name) in _FRAME_ATTRS:
            yield call, "frames", spelling(call)


def _private_torch(parts: list[str]) -> bool:
    path = ".".join(parts)
    if any(path == a or path.startswith(a + ".") for a in _ALLOWED_PRIVATE):
        return False
    return any(_private_word(p) for p in parts[1:])


@functools.lru_cache(maxsize=4096)
def _private_tensor_attr(name: str) -> bool:
    """A private attribute of torch.Tensor or torch.nn.Module (``x._version``,
    ``model._parameters``)."""
    if not _private_word(name):
        return False
    return (
        torchnames.lookup(f"Tensor.{name}") is not torchnames.MISSING
        or torchnames.lookup(f"torch.nn.Module.{name}") is not torchnames.MISSING
        or name in _module_instance_attributes()
    )


@functools.lru_cache(maxsize=1)
def _module_instance_attributes() -> frozenset[str]:
    """What nn.Module.__init__ sets on every module (``_parameters``, ``_forward_hooks``)."""
    import torch

    return frozenset(vars(torch.nn.Module()))
