"""One canonical key per tensor operation, for every way its name is spelled.

:func:`canonical_op` is the single place where the grader decides that two names are the same
operation. Both sides use it: the static analysis for what the source spells, and the checks
for what the learner-side trace recorded (torch functions as a ``TorchFunctionMode`` names them,
``torch.softmax``, ``Tensor.softmax``, ``torch.nn.functional.softmax``, ``torch._C._nn.linear``,
and ATen operators as a ``TorchDispatchMode`` names them, ``aten._softmax.default``). It is pure
string work: it imports nothing, so it is as cheap in a learner's process as here.

The key of a name is found in these steps:

1. the operation's own name: the last part of a dotted path (``torch.nn.functional.softmax``
   is ``softmax``); for an ATen operator, the part after the namespace, without the overload
   (``aten._softmax.default`` and ``aten::_softmax`` are ``_softmax``);
2. Python operators by their operation: ``__matmul__``, ``__rmatmul__`` and ``__imatmul__`` are
   ``matmul``, ``__truediv__`` is ``div``, ``__getitem__`` is ``getitem``;
3. leading underscores go (``_softmax`` is ``softmax``), and so does the trailing underscore of
   an in-place form (``cumsum_`` is ``cumsum``);
4. private ATen variants lose their variant prefix (``_masked_softmax``, ``_safe_softmax``,
   ``_sparse_softmax`` are ``softmax``), and ATen's namespace prefixes go (``special_softmax``,
   ``linalg_norm``, ``fft_fft``);
5. case and underscores go, and a trailing ``loss``, so that classes meet their functions:
   ``nn.Softmax`` is ``softmax``, ``nn.LogSoftmax`` and ``log_softmax`` are ``logsoftmax``,
   ``nn.CrossEntropyLoss`` and ``cross_entropy`` are ``crossentropy``, ``nn.MSELoss`` and
   ``mse_loss`` are ``mse``;
6. documented aliases meet their operation (``torch.concat`` is ``cat``, ``divide`` and
   ``true_divide`` are ``div``, ``special.expit`` is ``sigmoid``, ``nn.BCELoss`` is
   ``binarycrossentropy``).

So ``softmax`` and ``log_softmax`` stay apart (``log_softmax(x).exp()`` needs its own rule), and
``_log_softmax`` is ``log_softmax``. :func:`covers` adds the backward operators: a rule for
``softmax`` also covers ``_softmax_backward_data``.
"""

from __future__ import annotations

import functools
import re

_BINARY = [
    "add",
    "sub",
    "mul",
    "matmul",
    "truediv",
    "floordiv",
    "mod",
    "divmod",
    "pow",
    "lshift",
    "rshift",
    "and",
    "xor",
    "or",
]
_DUNDER = re.compile(r"^__(?P<name>[a-z0-9_]+?)__$")
_PRIVATE_VARIANTS = ("masked_", "safe_", "sparse_")
_NAMESPACES = ("special_", "linalg_", "fft_")
_ATEN_NAMESPACES = {"aten", "prims", "prim", "quantized", "_quantized", "sparse", "fbgemm"}
ALIASES = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "clip": "clamp",
    "concat": "cat",
    "concatenate": "cat",
    "divide": "div",
    "truedivide": "div",
    "truediv": "div",
    "floordiv": "floordivide",
    "mod": "remainder",
    "multiply": "mul",
    "subtract": "sub",
    "negative": "neg",
    "fix": "trunc",
    "ger": "outer",
    "greater": "gt",
    "greaterequal": "ge",
    "less": "lt",
    "lessequal": "le",
    "notequal": "ne",
    "moveaxis": "movedim",
    "swapaxes": "transpose",
    "swapdims": "transpose",
    "rowstack": "vstack",
    "expit": "sigmoid",
    "psi": "digamma",
    "gammaln": "lgamma",
    "and": "bitwiseand",
    "or": "bitwiseor",
    "xor": "bitwisexor",
    "invert": "bitwisenot",
    "lshift": "bitwiseleftshift",
    "rshift": "bitwiserightshift",
    "bce": "binarycrossentropy",
    "bcewithlogits": "binarycrossentropywithlogits",
}


def operation_name(name: str) -> str:
    """Step 1: the operation's own name in a dotted path or an ATen operator name."""
    name = name.strip()
    if "::" in name:
        name = name.split("::", 1)[1]
        return name.split(".", 1)[0]
    parts = [p for p in name.split(".") if p]
    if not parts:
        return ""
    for i, part in enumerate(parts[:-1]):
        if part in _ATEN_NAMESPACES and (i == 0 or parts[i - 1] == "ops"):
            return parts[i + 1]
    return parts[-1]


@functools.lru_cache(maxsize=65536)
def canonical_op(name: str) -> str:
    """The key shared by every spelling of the operation ``name`` (see the module docstring):
    ``canonical_op("aten._softmax.default") == canonical_op("torch.softmax") ==
    canonical_op("x.softmax") == canonical_op("nn.Softmax") == "softmax"``."""
    op = operation_name(name)
    dunder = _DUNDER.match(op)
    if dunder:
        op = dunder.group("name")
        for binary in _BINARY:
            if op in (f"r{binary}", f"i{binary}"):
                op = binary
                break
    private = op.startswith("_")
    op = op.lstrip("_")
    if op.endswith("_") and len(op) > 1:
        op = op[:-1]
    if private:
        for prefix in _PRIVATE_VARIANTS:
            if op.startswith(prefix) and len(op) > len(prefix):
                op = op[len(prefix) :]
                break
    for prefix in _NAMESPACES:
        if op.startswith(prefix) and len(op) > len(prefix):
            op = op[len(prefix) :]
            break
    key = op.lower().replace("_", "")
    if key.endswith("loss") and len(key) > len("loss"):
        key = key[: -len("loss")]
    return ALIASES.get(key, key)


def covers(rule: str, name: str) -> bool:
    """Whether a bare forbidden name (``softmax``) covers the operation ``name``, in any of
    the spellings :func:`canonical_op` knows, or its backward operator."""
    want = canonical_op(rule)
    got = canonical_op(name)
    return got == want or got in (f"{want}backward", f"{want}backwarddata")


def is_aten(name: str) -> bool:
    """Whether ``name`` is an ATen operator as a dispatch mode names it."""
    if "::" in name:
        return True
    parts = name.split(".")
    return parts[0] in _ATEN_NAMESPACES or (len(parts) > 2 and parts[1] == "ops")
