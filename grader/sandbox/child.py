"""The learner's side: the only code that imports a learner's file and calls into it.

It runs in a child forked from the fork server, after :mod:`grader.sandbox.tiers.process` has applied
its limits. It imports the learner's file, says which functions it defines (or how the import
failed), then answers requests until the trusted side closes the connection:

* ``call``: call one of the learner's functions with decoded arguments;
* ``run``: run a scenario (a helper from the hidden test file, sent as source) next to the
  learner's module.

Every answer is data (see :mod:`grader.sandbox.codec`): the return value, the inputs as they are
after the call (so the trusted side can see mutations), what was traced (tensor operations counted
and torch functions called) and, if the learner's code raised, the exception's type, message and
the frames of the traceback that lie in the learner's file. Nothing here decides a verdict.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import faulthandler
import io
import linecache
import os
import random
import re
import socket
import sys
import time
import traceback
import types
from collections import Counter
from collections.abc import Iterator
from typing import Any, NoReturn

import numpy as np
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from grader.sandbox import codec, protocol
from grader.sandbox.messages import (
    MAX_DIMS,
    MAX_SHAPES,
    Answer,
    ErrorFrame,
    ErrorInfo,
    Hello,
    Trace,
)
from grader.sandbox.protocol import SNAPSHOT_SIGNAL
from grader.sandbox.seeding import unseeded_accelerators
from grader.text import source_lines

MODULE_NAME = "submission"
SCENARIO_GLOBALS = ("torch", "nn", "F", "np", "math", "random")

# Captured before any learner code runs: learner code may replace the public names.
_send = protocol.send
_receive = protocol.receive
_Encoder = codec.Encoder
_decode = codec.decode
_perf_counter = time.perf_counter
_BaseException = BaseException
_replace = dataclasses.replace
_ABSENT = Answer("", ok=True).after  # the marker of a field that is not there


def _missing(name: str) -> ErrorInfo:
    """What a call of a function the learner's file does not define answers."""
    return ErrorInfo("missing", "AttributeError", ("AttributeError",), f"{name} is not defined")


# The recursion limit the child's own work (decoding requests, encoding answers, describing
# errors) needs at least; the learner's code runs with whatever limit it set itself.
_GRADER_DEPTH = 1000
_learner_limit: list[int | None] = [None]


@contextlib.contextmanager
def _learners_depth() -> Iterator[None]:
    """Run learner code under the recursion limit it set, and the child's own code under at
    least ``_GRADER_DEPTH``: ``sys.setrecursionlimit(30)`` at the top of a learner's file made
    encoding the next answer fail, the child exit 70, and the learner read the grader's JSON
    traceback and "returned a value the grader cannot read"."""
    wanted = _learner_limit[0]
    if wanted is not None and wanted != sys.getrecursionlimit():
        with contextlib.suppress(RecursionError, ValueError):  # too low for where we are
            sys.setrecursionlimit(wanted)
    try:
        yield
    finally:
        limit = _learner_limit[0] = sys.getrecursionlimit()
        if limit < _GRADER_DEPTH:
            with contextlib.suppress(RecursionError, ValueError):
                sys.setrecursionlimit(_GRADER_DEPTH)


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]")  # PEP 263, on the first two lines


def _decodes_as_python_reads(source: bytes, display: str) -> None:
    """Raise the SyntaxError ``python file.py`` raises for a file it cannot decode. Where the
    file declares neither a coding cookie nor a UTF-8 BOM, Python checks that every byte of it
    (comments too) is UTF-8, and compile() of bytes does not: a Latin-1 byte in a comment
    passed it, and a file Python refuses to run scored full marks. (With a cookie or a BOM,
    compile() and ``python file.py`` read a file alike.)"""
    if source.startswith(b"\xef\xbb\xbf") or any(
        _COOKIE.match(line) for line in source.split(b"\n", 2)[:2]
    ):
        return
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = len(source_lines(source[: exc.start].decode("utf-8", errors="replace") + "x"))
        raise SyntaxError(
            f"Non-UTF-8 code starting with '\\x{source[exc.start]:02x}' on line {line}, but no "
            "encoding declared; see https://peps.python.org/pep-0263/ for details",
            (display, line, 0, None),
        ) from None


class _FunctionTrace(TorchFunctionMode):
    """Records every torch function the learner's code calls (any spelling of it)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: Counter[str] = Counter()

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        self.names[_function_name(func)] += 1
        return func(*args, **(kwargs or {}))


class _OpCount(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base
    """Counts the tensor operations (ATen calls) the learner's code performs."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.count = 0
        self.ops: Counter[str] = Counter()  # by ATen name: what any spelling dispatched to

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        self.count += 1
        self.ops[str(func)] += 1
        return func(*args, **(kwargs or {}))


# Operations CUDA runs across devices: copies from one device to another, and CPU indices into
# a tensor on another device (advanced indexing and assignment through it).
_CROSS_DEVICE_COPIES = frozenset(
    {"_to_copy", "copy_", "_copy_from", "_copy_from_and_resize", "lift_fresh", "lift_fresh_copy"}
)
_INDEXING = frozenset({"index", "index_put_", "index_put", "_index_put_impl_", "_unsafe_index"})


def _leaves(value: Any, depth: int = 0) -> Iterator[Any]:
    """What a call's arguments hold, lists, tuples and dicts opened (four levels)."""
    if depth < 4 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item, depth + 1)
    else:
        yield value


def _on_meta(value: Any) -> bool:
    """A meta tensor, or a name of the meta device (a scenario that makes its own tensors)."""
    if isinstance(value, torch.Tensor):
        return value.device.type == "meta"
    if isinstance(value, torch.device):
        return value.type == "meta"
    return isinstance(value, str) and (value == "meta" or value.startswith("meta:"))


class _OneDevice(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base
    """Meta tensors stand in for a GPU (grader.testing.devices), but PyTorch's meta kernels let
    many operations take CPU tensors beside meta ones (a matmul, add_, gather, scatter_, indexing
    a CPU tensor with meta indices) where a GPU refuses ("Expected all tensors to be on the same
    device"): a model left on the CPU, or a one-hot built on the CPU, passed the meta case on a
    machine without a GPU. In a call on meta, an operation that mixes meta tensors with CPU
    tensors of one or more dimensions raises as on a GPU; what a GPU allows stays allowed:
    0-dimensional CPU tensors (scalars), copies between devices, CPU indices into a meta
    tensor. Only more errors can come of it, each one a GPU would raise."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        name = func.__name__.split(".")[0] if hasattr(func, "__name__") else ""
        if name not in _CROSS_DEVICE_COPIES:
            checked: list[Any] = [args, kwargs]
            if name in _INDEXING and args and isinstance(args[0], torch.Tensor):
                if args[0].device.type == "meta":
                    checked = []  # CPU indices (and values) into a meta tensor
                else:
                    checked = [args[0], args[1] if len(args) > 1 else ()]
            meta = cpu = False
            for tensor in _leaves(checked):
                if not isinstance(tensor, torch.Tensor):
                    continue
                kind = tensor.device.type
                meta = meta or kind == "meta"
                cpu = cpu or (kind == "cpu" and tensor.dim() > 0)
            if meta and cpu:
                raise RuntimeError(
                    "Expected all tensors to be on the same device, but found at least two "
                    f"devices, meta and cpu! ({name} got a tensor on the CPU beside tensors on "
                    "meta, the device of the inputs)"
                )
        return func(*args, **kwargs)


def _function_name(func: Any) -> str:
    qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    module = getattr(func, "__module__", None) or ""
    if qualname.startswith("_VariableFunctionsClass."):
        return "torch." + qualname.split(".", 1)[1]
    if qualname.startswith(("TensorBase.", "Tensor.")):
        return "Tensor." + qualname.split(".", 1)[1]
    if module.startswith("torch"):
        return f"{module}.{qualname}"
    return qualname


class LearnerSide:
    """State of one child: the learner's module and the scenarios it was sent."""

    def __init__(
        self, learner_path: str, max_answer_bytes: int, display: str = "", cuda: bool = True
    ) -> None:
        self.learner_path = learner_path
        self.cuda = cuda  # a CUDA child (a CPU child cannot see a GPU)
        # the name tracebacks and warnings show: the file as the learner named it, never the
        # sandbox's path to its copy
        self.display = display or os.path.basename(learner_path)
        self.max_answer_bytes = max_answer_bytes
        self.module: types.ModuleType | None = None
        self.scenarios: dict[tuple[str, str], Any] = {}

    # -- import ---------------------------------------------------------------------------

    def import_learner(self) -> Hello:
        try:
            with open(self.learner_path, "rb") as handle:
                source = handle.read()
        except OSError:
            return Hello(
                ok=False,
                error=ErrorInfo("import", "ImportError", ("ImportError",), "cannot load the file"),
            )
        module = types.ModuleType(MODULE_NAME)
        module.__file__ = self.learner_path
        sys.modules[MODULE_NAME] = module
        # The learner's lines for tracebacks, under the name the learner knows the file by.
        text = source.decode("utf-8", errors="replace")
        linecache.cache[self.display] = (
            len(text),
            None,
            source_lines(text, keepends=True),
            self.display,
        )
        started = _perf_counter()
        try:
            _decodes_as_python_reads(source, self.display)
            code = compile(source, self.display, "exec", dont_inherit=True)
            with _learners_depth():
                exec(code, module.__dict__)  # the learner's file, in their own sandboxed process
        except _BaseException as exc:
            return Hello(
                ok=False,
                error=self.describe(exc, kind="import"),
                duration_s=_perf_counter() - started,
            )
        self.module = module
        functions = sorted(
            name
            for name, value in vars(module).items()
            if callable(value) and not name.startswith("__")
        )
        return Hello(ok=True, functions=tuple(functions), duration_s=_perf_counter() - started)

    # -- requests -------------------------------------------------------------------------

    def handle(
        self, header: dict[str, Any], blobs: list[bytearray]
    ) -> tuple[Answer, list[memoryview]]:
        request_id = str(header.get("id", ""))
        op = header.get("op")
        if op not in ("call", "run"):
            error = ErrorInfo("protocol", "ProtocolError", (), f"unknown op {op!r}")
            return Answer(request_id, ok=False, error=error), []
        _seed(int(header.get("seed", 0)), self.cuda)
        try:
            args, kwargs = _decode(header["payload"], blobs, scenario_loader=self.load_scenario)
        except _BaseException as exc:
            return Answer(request_id, ok=False, error=self.describe(exc, kind="arguments")), []

        if op == "call":
            name = header.get("name", "")
            try:  # a module-level __getattr__ of the learner's runs here, and may raise anything
                module = self.module
                with _learners_depth():
                    target = getattr(module, name, None) if module is not None else None
            except _BaseException as exc:
                return Answer(request_id, ok=False, error=self.describe(exc, kind="call")), []
            if not callable(target):
                return Answer(request_id, ok=False, error=_missing(name)), []
        else:
            scenario = args[0]
            target = scenario
            args = [self.module, *args[1:]]

        trace = bool(header.get("trace"))
        functions, ops = _FunctionTrace(), _OpCount()
        started = _perf_counter()
        on_meta = any(_on_meta(v) for v in _leaves((args, kwargs)))
        one_device = _OneDevice() if on_meta else contextlib.nullcontext()
        try:
            with _learners_depth(), one_device:
                if trace:
                    with functions, ops:
                        value = target(*args, **kwargs)
                else:
                    value = target(*args, **kwargs)
        except _BaseException as exc:
            missing = self._missing_in_scenario(exc) if op == "run" else None
            failed = Answer(
                request_id,
                ok=False,
                error=missing or self.describe(exc, kind="call"),
                duration_s=_perf_counter() - started,
            )
            return self._with_inputs(failed, args, kwargs, op)
        duration = _perf_counter() - started
        traced = Trace(ops.count, dict(functions.names), dict(ops.ops)) if trace else None
        inputs = _input_paths(args if op == "call" else args[1:], kwargs)
        try:
            encoder = _Encoder(max_bytes=self.max_answer_bytes, inputs=inputs)
            tree = encoder.encode(value)
        except _BaseException as exc:
            return Answer(request_id, ok=False, error=self.describe(exc, kind="answer")), []
        answer = Answer(request_id, ok=True, duration_s=duration, value=tree, trace=traced)
        return self._with_inputs(answer, args, kwargs, op, encoder)

    def _missing_in_scenario(self, exc: BaseException) -> ErrorInfo | None:
        """A scenario (the hidden tests' code run here) that asked the learner's module for a
        function it does not define: said as a call of that function is, not as the
        scenario's own AttributeError about module 'submission'."""
        if not isinstance(exc, AttributeError) or self.module is None:
            return None
        name = getattr(exc, "name", None)
        if getattr(exc, "obj", None) is not self.module or not isinstance(name, str):
            return None
        return None if name in vars(self.module) else _missing(name)

    def _with_inputs(
        self,
        answer: Answer,
        args: list[Any],
        kwargs: dict[str, Any],
        op: str,
        encoder: codec.Encoder | None = None,
    ) -> tuple[Answer, list[memoryview]]:
        """Attach the inputs as they are now, so the trusted side can see what was changed."""
        if encoder is None:
            encoder = _Encoder(max_bytes=self.max_answer_bytes)
        after = _ABSENT
        try:
            if op == "call":
                after = encoder.encode({"args": list(args), "kwargs": dict(kwargs)})
        except _BaseException:
            after = _ABSENT
        answer = _replace(answer, after=after, storages=tuple(encoder.storages))
        return answer, encoder.blobs

    def load_scenario(self, scenario: codec.Scenario) -> Any:
        key = (scenario.name, scenario.source)
        if key not in self.scenarios:
            namespace: dict[str, Any] = {"__name__": "scenario", "__builtins__": builtins}
            import math

            import torch.nn.functional as F

            namespace.update(torch=torch, nn=torch.nn, F=F, np=np, math=math, random=random)
            code = compile(scenario.source, scenario.filename, "exec")
            exec(code, namespace)  # trusted source sent by the grader
            self.scenarios[key] = namespace[scenario.name]
        return self.scenarios[key]

    # -- errors ---------------------------------------------------------------------------

    def describe(self, exc: BaseException, kind: str) -> ErrorInfo:
        """An exception as data: type, message, and the frames in the learner's file."""
        cls = type(exc)
        try:
            message = str(exc)
        except _BaseException:
            message = "<the exception's message could not be read>"
        if len(message) > 4000:
            message = message[:4000] + " ... [message cut]"
        frames = []
        try:
            for frame in traceback.extract_tb(exc.__traceback__):
                if frame.filename == self.display:
                    frames.append(
                        ErrorFrame(frame.lineno or 0, frame.name, (frame.line or "").strip()[:300])
                    )
        except _BaseException:
            pass
        if frames:
            shapes = _line_shapes(exc.__traceback__, self.display, frames[-1].code)
            if shapes:
                frames[-1] = dataclasses.replace(frames[-1], shapes=shapes)
        offset = None
        exit_code = None
        if isinstance(exc, SyntaxError) and exc.filename == self.display:
            line = exc.lineno if type(exc.lineno) is int and 0 <= exc.lineno <= 10**9 else 0
            frames = [ErrorFrame(line, "<module>", str(exc.text or "").strip()[:300])]
            # Python gives -1 (an unknown coding cookie) or None where it has no column: the
            # trusted side reads 0 and up only, and took the whole answer for a forgery
            if type(exc.offset) is int and 0 <= exc.offset <= 10**9:
                offset = exc.offset
            message = str(exc.msg)  # the line is reported apart; no "(file, line N)" suffix
        if isinstance(exc, SystemExit):
            exit_code = exc.code if isinstance(exc.code, (int, type(None))) else str(exc.code)
        return ErrorInfo(
            kind=kind,
            type=f"{cls.__module__}.{cls.__qualname__}".removeprefix("builtins."),
            classes=tuple(
                f"{c.__module__}.{c.__qualname__}".removeprefix("builtins.") for c in cls.__mro__
            ),
            message=message,
            frames=tuple(frames[-12:]),
            offset=offset,
            exit_code=exit_code,
        )


# A name on a line, not an attribute's (``self.weight`` names no local ``weight``)
_LINE_NAME = re.compile(r"(?<![.\w])[^\W\d]\w*")


def _line_shapes(
    tb: types.TracebackType | None, display: str, code: str
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The tensors the innermost learner frame's line names, with their shapes then: a shape
    error says "size 3 against 2", and which operand had which is what the learner must find.
    Whatever a tensor subclass does when asked, this gives up quietly."""
    try:
        last = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == display:
                last = tb
            tb = tb.tb_next
        if last is None:
            return ()
        scope = last.tb_frame.f_locals
        found = []
        for name in dict.fromkeys(_LINE_NAME.findall(code)):
            value = scope.get(name) if type(scope) is dict else None
            if isinstance(value, torch.Tensor) and value.dim() <= MAX_DIMS:
                found.append((name, tuple(int(size) for size in value.shape)))
            if len(found) == MAX_SHAPES:
                break
        return tuple(found)
    except _BaseException:
        return ()


def _input_paths(args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    paths = {f"args[{i}]": value for i, value in enumerate(args)}
    paths.update({f"kwargs[{key!r}]": value for key, value in kwargs.items()})
    return paths


def _seed(seed: int, cuda: bool) -> None:
    """The same seed before every call: results never depend on the order tests ran in.

    A CPU child seeds torch's CPU generator alone: it cannot see a GPU, so that is all
    ``torch.manual_seed`` changes there. ``torch.manual_seed`` also queues a seed for every
    accelerator not yet initialised, capturing a formatted stack for each (about 1 ms a call,
    and an exercise makes dozens of calls); a CUDA child still needs that queue, which seeds
    CUDA when the learner's code first uses it.
    """
    random.seed(seed)
    np.random.seed(seed % (2**32))
    if cuda:
        torch.manual_seed(seed)
    else:
        torch.default_generator.manual_seed(seed)


def serve(
    sock: socket.socket, learner_path: str, max_answer_bytes: int, display: str, cuda: bool
) -> None:
    """The child's main loop; returns when the trusted side closes the connection."""
    side = LearnerSide(learner_path, max_answer_bytes, display, cuda)
    hello = side.import_learner()
    _flush()
    _send(sock, hello.to_wire())
    while True:
        try:
            header, blobs = _receive(sock)
        except (EOFError, OSError):
            return
        answer, answer_blobs = side.handle(header, blobs)
        _flush()
        try:
            _send(sock, answer.to_wire(), answer_blobs)
        except _BaseException as exc:
            error = ErrorInfo("answer", type(exc).__name__, (type(exc).__name__,), str(exc)[:500])
            _send(sock, Answer(answer.id, ok=False, error=error).to_wire())


_STREAMS: list[io.TextIOBase] = []


def install_streams() -> None:
    """Unbuffered text streams on fds 1 and 2, remembered so learner code cannot hide them."""
    out = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )
    err = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )
    sys.stdout, sys.stderr = out, err
    sys.__stdout__, sys.__stderr__ = out, err  # type: ignore[misc]
    _STREAMS[:] = [out, err]
    linecache.clearcache()


def _flush() -> None:
    for stream in (*_STREAMS, sys.stdout, sys.stderr):
        try:
            stream.flush()
        except _BaseException:
            pass


def main(
    sock_fd: int, learner_path: str, max_answer_bytes: int, display: str = "", cuda: bool = True
) -> NoReturn:
    """Entry point inside the forked child; never returns."""
    code = 0
    try:
        # Where the learner's code is when the trusted side stops it at a deadline: the stack
        # is written (from C, so a call holding the GIL is no obstacle) into the output, which
        # the trusted side reads and takes out again (grader.sandbox.pool).
        faulthandler.register(SNAPSHOT_SIGNAL, all_threads=False, chain=False)
        if not cuda:
            # a CPU child sees no GPU; ROCm's devices are hidden by other means, kept as is
            unseeded_accelerators(cuda_possible=torch.version.hip is not None)
        sock = socket.socket(fileno=sock_fd)
        serve(sock, learner_path, max_answer_bytes, display, cuda)
    except _BaseException:
        code = 70
        try:  # a failure of this loop is the grader's: leave a trace in the captured output
            traceback.print_exc()
        except _BaseException:
            pass
    finally:
        _flush()
        os._exit(code)
