"""No seeds queued for accelerators that can never start in this process.

``torch.manual_seed`` (hidden tests and scenarios call it, hypothesis calls it for every
example) also queues a seed for each accelerator not started yet, with a formatted stack of the
call for the error message of a start that fails: about half a millisecond a call at pytest's
depth, an eighth of a worker's time on some exercises, and a fifth of a learner child's busy
time in exercise 20's scenarios (each stat()s and reads the files of every frame). An
accelerator that can never start in the process never applies a queued seed, so not queuing
one changes nothing but the time: the CPU generator is seeded as ever, and code that asks for
CUDA there fails as it would have. A process where CUDA could start keeps torch's queue as it
is.

Used by the trusted worker (CUDA cannot start in a CPU pass of a CPU-only build) and by a
learner's CPU child (it sees no GPU: an empty ``CUDA_VISIBLE_DEVICES`` and, in the namespaces
tier, no device nodes).
"""

from __future__ import annotations

from typing import Any


def unseeded_accelerators(cuda_possible: bool) -> None:
    """Queue no seeds for the accelerators that can never start here; ``cuda_possible`` says
    whether CUDA (or ROCm, which torch serves as CUDA) could. XPU and MTIA keep their queues
    wherever torch was built with them."""
    import torch.cuda.random
    import torch.mtia
    import torch.xpu.random

    for module, possible in (
        (torch.cuda.random, cuda_possible),
        (torch.xpu.random, _compiled(torch.xpu)),
        (torch.mtia, _compiled(torch.mtia)),
    ):
        queue = getattr(module, "_lazy_call", None)
        if not possible and queue is not None:
            module._lazy_call = _without_seeds(queue)  # type: ignore[attr-defined]


def _compiled(accelerator: Any) -> bool:
    """Whether torch was built with this accelerator; yes where torch does not say (a torch
    that moved the private helper keeps its seed queue as it is)."""
    is_compiled = getattr(accelerator, "_is_compiled", None)
    return True if is_compiled is None else bool(is_compiled())


def _without_seeds(queue: Any) -> Any:
    """``queue`` (an accelerator module's ``_lazy_call``), less the seeds it would queue."""

    def lazy_call(callable: Any, **kwargs: Any) -> None:
        if kwargs.get("seed") or kwargs.get("seed_all"):
            return  # a seed for a device that cannot start here
        queue(callable, **kwargs)

    return lazy_call
