"""The meta device in hidden tests: a stand-in for a GPU on any machine.

Meta tensors have a device, a shape and a dtype but no data. A tensor the learner's code creates
without ``device=`` lands on the CPU next to meta inputs exactly as it would next to CUDA inputs,
so a meta case catches the slip on machines without a GPU. Two things the learner's code may do
cannot run on meta, and are caught in the learner's process by :func:`call_on_meta`:

- copying a meta tensor's data elsewhere (filling a tensor made on the CPU from the inputs,
  ``.cpu()``) raises ``NotImplementedError: Cannot copy out of meta tensor; no data!``. Raised
  as is, it would read like an unfinished starter ("not implemented yet"); :func:`on_meta` names
  the device slip instead;
- reading the values (``.item()``, a tensor in an ``if`` or an ``assert``) raises
  ``RuntimeError: ... cannot be called on meta tensors``. Such code is not wrong, only untestable
  on meta: a test may ask for it to come back as data and skip the case.

:func:`reference_on` gives the reference's answer for meta inputs without running the reference
on meta (the first meta operation in a process costs about a second of imports).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from grader.spec import Text
from grader.testing.checks import fail, names


# A scenario: sent as source and run in the learner's process (see exercises/README.md), so it is
# self-contained and has no annotations (they would be evaluated there, without this module's
# imports).
def call_on_meta(module, name, args, catch_copies=True, catch_reads=False):
    """Runs in the learner's process: ``module.<name>(*args)`` on meta tensors.

    Returns ``{"value": ...}`` (a tuple result, such as torch.max's named tuple, as a plain
    tuple), or, instead of raising: ``{"copied_out_of_meta": message}`` when the code copied the
    data of a meta tensor to another device (with ``catch_copies``), ``{"reads_values": message}``
    when it read the values of a meta tensor (with ``catch_reads``).
    """
    try:
        value = getattr(module, name)(*args)
    except NotImplementedError as exc:  # "Cannot copy out of meta tensor; no data!"
        if not catch_copies or "meta" not in str(exc):
            raise
        return {"copied_out_of_meta": str(exc)}
    except RuntimeError as exc:  # "Tensor.item() cannot be called on meta tensors"
        if not catch_reads or "cannot be called on meta tensors" not in str(exc):
            raise
        return {"reads_values": str(exc)}
    return {"value": tuple(value) if isinstance(value, tuple) else value}


def on_meta(learner: Any, name: str, args: Sequence[Any], what: str | Text) -> Any:
    """``learner.<name>(*args)`` for meta inputs, run through :func:`call_on_meta`; returns the
    learner's answer. Fails with the ``wrong_device`` evidence when the learner's code copies the
    data of a meta input to another device (a tensor created without ``device=``, or ``.cpu()``).
    Code that reads values raises as any learner exception does."""
    answer = learner.run(call_on_meta, name, list(args))
    if "copied_out_of_meta" in answer:
        we, wz = names(what)
        said = answer["copied_out_of_meta"]
        fail(
            f"{we} tried to copy the data of its meta inputs to another device (PyTorch said: "
            f"{said}). Somewhere a tensor is created without device=... (it lands on the CPU) or "
            "moved with .cpu(); create every tensor on the inputs' device, e.g. device=x.device "
            "or x.new_empty(...).",
            f"{wz} 试图把 meta 输入的数据复制到另一个设备上（PyTorch 报错：{said}）。"
            "代码中某处创建张量时没有指定 device=...（于是它在 CPU 上），或者用了 .cpu()；"
            "请在输入所在的设备上创建每个张量，例如 device=x.device 或 x.new_empty(...)。",
            evidence=["wrong_device"],
        )
    return answer["value"]


def reference_on(device: str, fn: Callable[..., Any], *args: Any) -> Any:
    """The reference's answer ``fn(*args)``. For meta inputs (shapes without data) it is the
    answer to CPU stand-ins of the same shapes and dtypes (zeros), moved to meta: the same
    expected shape, dtype and device, without paying here the one-off import of PyTorch's meta
    kernels (about a second). Only for results whose shape does not depend on the values."""
    if device != "meta":
        return fn(*args)
    stand_ins = [
        torch.zeros(a.shape, dtype=a.dtype) if isinstance(a, torch.Tensor) else a for a in args
    ]
    return fn(*stand_ins).to("meta")
