"""The grading engine: a :class:`GradeRequest` in, a :class:`~grader.results.Result` out.

api        the request and the Engine interface every front end calls
local      LocalEngine: warm-up, the fork server, CPU/CUDA passes on this machine
scheduler  groups of gradings over trusted workers, parallelism, deadlines
worker     the trusted worker: runs the hidden tests with pytest (plugin)
records    what a worker reports, as typed records
assemble   records to a Result, with a verdict for every (test, device)
scoring    scores, statuses, and the exit-code policy
"""

from grader.engine.api import DEFAULT_SEED, Engine, GradeRequest, RequestError
from grader.engine.local import LocalEngine

__all__ = ["DEFAULT_SEED", "Engine", "GradeRequest", "LocalEngine", "RequestError"]
