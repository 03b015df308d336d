"""One grading in a fresh process, spoken in the server's protocol over stdin and stdout.

The notebook grades through the warm server; when no server can be had it still must not grade
inside the kernel (which holds the learner's variables and may hold CUDA state), so it runs
``python -m grader.serve --once``: the same request in, the same reply out, the same engine in
between, in a process of its own that ends with the grading.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

from grader.errors import GraderError, UsageError
from grader.results import Result
from grader.serve import protocol


def grade_once(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Read one GradeCall, grade it, write the reply; the exit code says how it went."""
    try:
        message = protocol.read_stream(stdin, (protocol.GradeCall,))
    except protocol.ProtocolError as exc:
        protocol.write_stream(stdout, protocol.ErrorReply(protocol.BAD_MESSAGE, str(exc)))
        return 2
    assert isinstance(message, protocol.GradeCall)
    reply: protocol.Message
    with _stdout_to_stderr():
        try:
            reply = protocol.ResultReply(_grade(message))
        except UsageError as exc:
            reply = protocol.ErrorReply(protocol.USAGE, exc.message, exc.hint or "")
        except GraderError as exc:
            reply = protocol.ErrorReply(protocol.INTERNAL, exc.message)
    protocol.write_stream(stdout, reply)
    return 0 if isinstance(reply, protocol.ResultReply) else 1


def _grade(message: protocol.GradeCall) -> Result:
    from grader.catalog import Catalog, project_root
    from grader.engine import LocalEngine
    from grader.serve.submission import check_devices

    request = message.request
    spec = Catalog(project_root()).resolve(request.exercise)
    engine = LocalEngine(preload=[spec])
    check_devices(request.devices, engine.gpus)
    with engine:
        result: Result = engine.grade(request)
    return result


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Whatever the grading prints goes to stderr: stdout carries the reply alone."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
