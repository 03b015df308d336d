"""The static backstop of meta cases (grader.testing.devices.device_slips): code that takes
another path when a tensor operation raises cannot earn CUDA credit on meta.

Copying a meta tensor's data into a CPU tensor raises on meta and works on CUDA, so code that
builds its answer on the CPU and moves it to the input's device only when an operation raises
passes on meta and fails on a GPU. Whatever form the handler takes and wherever it sits in the
reachable code, it is a slip; the honest twin (no handler) is not.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.testing.devices import CATCHES, device_slips

# (prelude lines, the guarded block with {body} and {fallback}), each catching what a tensor
# operation raises
_HANDLERS = [
    ("", "try:\n    {body}\nexcept:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept Exception:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept BaseException:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept RuntimeError:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept NotImplementedError as exc:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept (KeyError, RuntimeError):\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept TypeError:\n    {fallback}\n"),
    ("Oops = RuntimeError\n", "try:\n    {body}\nexcept Oops:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept KeyError:\n    pass\nexcept Exception:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept* RuntimeError:\n    {fallback}\n"),
    ("", "try:\n    {body}\nexcept Exception:\n    {fallback}\nfinally:\n    pass\n"),
    ("import contextlib\n", "{fallback}\nwith contextlib.suppress(Exception):\n    {body}\n"),
    ("from contextlib import suppress\n", "{fallback}\nwith suppress(RuntimeError):\n    {body}\n"),
    (
        "from contextlib import suppress as quietly\n",
        "{fallback}\nwith quietly(NotImplementedError, ValueError):\n    {body}\n",
    ),
    (
        "class Quiet:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        return True\n",
        "{fallback}\nwith Quiet():\n    {body}\n",
    ),
]
_BODY = "out = torch.zeros(k, k).copy_(x[:k, :k])"
_FALLBACK = "out = x[:k, :k].clone()"


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def _program(prelude: str, block: str, where: str) -> str:
    guarded = block.format(body=_BODY, fallback=_FALLBACK)
    head = "import sys\nimport torch\n" + prelude
    if where == "function":
        return head + "def corner_copy(x, k):\n" + _indent(guarded, 4) + "    return out\n"
    if where == "helper":
        return (
            head
            + "def _copy(x, k):\n"
            + _indent(guarded, 4)
            + "    return out\n"
            + "def corner_copy(x, k):\n    return _copy(x, k)\n"
        )
    if where == "method":
        return (
            head
            + "class Copier:\n    def run(self, x, k):\n"
            + _indent(guarded, 8)
            + "        return out\n"
            + "def corner_copy(x, k):\n    return Copier().run(x, k)\n"
        )
    # nested: a function defined inside the graded one
    return (
        head
        + "def corner_copy(x, k):\n    def inner():\n"
        + _indent(guarded, 8)
        + "        return out\n    return inner()\n"
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    handler=st.sampled_from(_HANDLERS),
    where=st.sampled_from(["function", "helper", "method", "nested"]),
)
def test_code_that_recovers_from_an_error_is_a_slip(handler, where):
    prelude, block = handler
    source = _program(prelude, block, where)
    assert CATCHES in {why for _, why in device_slips(source, "corner_copy")}, source


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(["function", "helper", "method", "nested"]))
def test_the_honest_twin_is_not(where):
    source = _program("", "out = x[:k, :k].clone()\n", where)
    assert device_slips(source, "corner_copy") == [], source


@pytest.mark.parametrize(
    "block",
    [
        "d = {{}}\ntry:\n    d['a']\nexcept KeyError:\n    pass\nout = x[:k, :k].clone()\n",
        "try:\n    import scipy\nexcept ImportError:\n    pass\nout = x[:k, :k].clone()\n",
        "try:\n    out = x[:k, :k].clone()\nfinally:\n    pass\n",
    ],
    ids=["key_error", "import_error", "finally_only"],
)
def test_handlers_no_tensor_operation_can_trigger_are_not_slips(block):
    assert device_slips(_program("", block, "function"), "corner_copy") == []


def test_a_handler_the_graded_code_never_reaches_is_not_a_slip():
    source = _program("", "out = x[:k, :k].clone()\n", "function") + (
        "def unused(x):\n    try:\n        return x.cpu()\n    except Exception:\n"
        "        return x\n"
    )
    assert device_slips(source, "corner_copy") == []


# Handlers that raise again what they caught: the error propagates as without the ``try``
# (``from None`` only hides the context; a print of constants and of the error itself runs
# no tensor operation and cannot make the function return)
_RERAISES = [
    "raise",
    "pass\nraise",
    "'propagate as is'\nraise",
    "raise exc",
    "raise exc from None",
    "print('x')\nraise",
    "print('failed:', exc, sep=' ')\nraise exc from None",
    "print(f'failed: {{exc!r}}', file=sys.stderr)\nraise",  # {{ }}: block.format
    "print(str(exc))\nraise exc",
]
_CAUGHT = ["", "Exception", "BaseException", "RuntimeError", "(TypeError, IndexError)"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    caught=st.sampled_from(_CAUGHT),
    reraise=st.sampled_from(_RERAISES),
    star=st.booleans(),
    where=st.sampled_from(["function", "helper", "method", "nested"]),
)
def test_a_handler_that_only_raises_again_is_not_a_slip(caught, reraise, star, where):
    named = "exc" in reraise
    if not caught and (named or star):
        caught = "Exception"  # ``except as exc`` and a bare ``except*`` are not Python
    clause = ("except* " if star else "except ") + caught + (" as exc" if named else "")
    block = "try:\n    {body}\n" + clause.rstrip() + ":\n" + _indent(reraise, 4)
    source = _program("", block, where)
    assert device_slips(source, "corner_copy") == [], source


@pytest.mark.parametrize(
    "fallback",
    [
        "raise ValueError('no')",
        "raise ValueError('no') from exc",
        "raise exc from other",
        "print(x.cpu())\nraise",
        "print(len(x.tolist()))\nraise",
        "print = other\nraise",
        "log(exc)\nraise",
        "raise other",
    ],
)
def test_a_handler_that_raises_something_else_or_does_more_is_still_a_slip(fallback):
    block = "other = ValueError()\ntry:\n    {body}\nexcept RuntimeError as exc:\n" + _indent(
        fallback, 4
    )
    source = _program("", block, "function")
    assert CATCHES in {why for _, why in device_slips(source, "corner_copy")}, source
