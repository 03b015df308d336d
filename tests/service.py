"""A grading service for the test suite: one warm Grader in a subprocess, fed JSON lines.

The pytest process must stay free to run tensor work of its own, which a process that forks
learner children must not do; so tests grade through this service, as the CLI would, in a
separate process. Request: {"exercise": ID, "file": PATH, "devices": [...], "seed": N,
"lang": "en"}; answer: the result JSON on one line, or {"error": ..., "exit_code": N}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    from grader.engine import GradeRequest, LocalEngine
    from grader.errors import GraderError

    with LocalEngine() as engine:
        uids = engine.learner_uids
        ready = {
            "ready": True,
            "isolation": engine.isolation,
            "learner_uids": [uids.start, uids.stop] if uids is not None else None,
        }
        print(json.dumps(ready), flush=True)
        for line in sys.stdin:
            request = json.loads(line)
            try:
                path = Path(request["file"])
                result = engine.grade(
                    GradeRequest(
                        exercise=engine.spec(request["exercise"]).id,
                        source=path.read_bytes(),
                        filename=str(path),
                        devices=tuple(request.get("devices", ("cpu", "cuda"))),
                        seed=int(request.get("seed", 20261129)),
                        lang=request.get("lang", "en"),
                    )
                )
                answer = result.to_dict()
            except GraderError as exc:
                answer = {"error": exc.message, "exit_code": int(exc.exit_code)}
            print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
