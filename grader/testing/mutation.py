"""Whether a learner's function left its inputs as they were: the curriculum's rule, judged on
the trusted side from the inputs the learner's side sent back after the call.

:func:`input_change` compares an input as it was sent with the same input as it came back
(values bit for bit, dtype, shape, device, ``requires_grad``, ``.grad``; containers item by item)
and says what changed, in both languages, with an evidence tag for the diagnosis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from grader.sandbox import codec


def input_change(before: Any, after: Any, depth: int = 0) -> tuple[str, str, str] | None:
    """How an input differs after the call, or None."""
    if depth > 8:
        return None
    if isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor):
            return None
        if info_device(after) != str(before.device):
            return (
                f"it was moved from {before.device} to {info_device(after)}.",
                f"它从 {before.device} 被移到了 {info_device(after)}。",
                "input_moved",
            )
        if before.shape != after.shape or before.dtype != after.dtype:
            return (
                f"it went from shape {tuple(before.shape)} {before.dtype} to "
                f"{tuple(after.shape)} {after.dtype}.",
                f"它从形状 {tuple(before.shape)} {before.dtype} 变成了 "
                f"{tuple(after.shape)} {after.dtype}。",
                "input_reshaped",
            )
        if "meta" not in (before.device.type, after.device.type) and not _same_bytes(before, after):
            return (
                "its values were overwritten (an in-place operation such as -=, add_() or "
                "item assignment on the input or on a view of it).",
                "它的值被改写了（对输入或其视图做了原地操作，例如 -=、add_() 或下标赋值）。",
                "input_values_changed",
            )
        if before.requires_grad != after.requires_grad:
            return (
                f"its requires_grad flag went from {before.requires_grad} to {after.requires_grad}.",
                f"它的 requires_grad 从 {before.requires_grad} 变成了 {after.requires_grad}。",
                "input_requires_grad_changed",
            )
        if (before.grad is None) != (after.grad is None) or (
            before.grad is not None
            and after.grad is not None
            and not _same_bytes(before.grad, after.grad)
        ):
            return (
                "its .grad changed (backward() accumulated into it, or it was reset).",
                "它的 .grad 被改变了（backward() 向其中累加了梯度，或被清零了）。",
                "input_grad_changed",
            )
        return None
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray):
            return None
        if (
            before.shape != after.shape
            or before.dtype != after.dtype
            or before.tobytes() != after.tobytes()
        ):
            return ("the array's contents changed.", "数组的内容被改变了。", "input_values_changed")
        return None
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        if len(before) != len(after):
            return (
                "items were added to or removed from it.",
                "其中的元素被增加或删除了。",
                "input_container_changed",
            )
        for b, a in zip(before, after, strict=True):
            problem = input_change(b, a, depth + 1)
            if problem:
                return problem
        return None
    if isinstance(before, dict) and isinstance(after, dict):
        if list(before) != list(after):
            return ("its keys changed.", "它的键被改变了。", "input_container_changed")
        for key in before:
            problem = input_change(before[key], after[key], depth + 1)
            if problem:
                return problem
    return None


def info_device(value: torch.Tensor) -> str:
    """Where the learner's side said a tensor was (it may have been rebuilt elsewhere here)."""
    info = codec.tensor_info(value)
    return info.device if info is not None else str(value.device)


def _same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit equality (so NaN equals NaN and -0.0 differs from 0.0)."""
    x = a.detach().cpu().reshape(-1).contiguous()
    y = b.detach().cpu().reshape(-1).contiguous()
    if x.numel() == 0:
        return True
    if x.dtype == torch.bool:
        return bool(torch.equal(x, y))
    return bool(torch.equal(x.view(torch.uint8), y.view(torch.uint8)))
