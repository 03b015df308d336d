"""The grading engine: a :class:`GradeRequest` in, a :class:`~grader.results.Result` out.

api        the request and the Engine interface every front end calls
local      LocalEngine: warm-up, the fork server, CPU/CUDA passes on this machine
scheduler  groups of gradings over trusted workers, parallelism, deadlines
worker     the trusted worker: runs the hidden tests with pytest (plugin)
records    what a worker reports, as typed records
assemble   records to a Result, with a verdict for every (test, device)
scoring    scores, statuses, and the exit-code policy
warmup     what the grading process imports before it forks (dynamo: torch._dynamo's stand-in)

``LocalEngine`` is imported on first use: a client of the warm server needs the request and the
result, not the machinery that grades (a tenth of its start-up time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grader.engine.api import DEFAULT_SEED, Engine, GradeRequest, RequestError

if TYPE_CHECKING:
    from grader.engine.local import LocalEngine

__all__ = ["DEFAULT_SEED", "Engine", "GradeRequest", "LocalEngine", "RequestError"]


def __getattr__(name: str) -> Any:
    if name == "LocalEngine":
        from grader.engine.local import LocalEngine

        return LocalEngine
    raise AttributeError(f"module 'grader.engine' has no attribute {name!r}")
