"""Where a learner's grading runs: the warm server when one answers, one started for it when
none is running, else without it. One route for every learner front end (``grade ID``,
``grade watch``, the notebook's magics), so that they cannot drift apart.

- **The server first**, unless ``--no-server`` or ``GRADE_NO_SERVER=1`` (or ``--debug``, which
  needs the engine's records in this process) keep it out. A server is given as long as the
  grading may take (:func:`time_limit`).
- **None running**: ``start="spawn"`` starts one and grades there (``grade watch``, the
  notebook); ``start="hand-off"`` grades without it, then leaves the grading process behind as
  the server once the command completes (``grade ID``: the dmypy pattern).
- **A server that cannot be used** (a stale socket, a folder other users can open, an answer
  that makes no sense, a server that died mid-grading, one that would not start): one line on
  stderr (:func:`fallback_note`), then the grading runs without it; the learner gets the same
  result either way. The reasons that belong to a server's normal life (none running yet, one
  leaving because its code changed) need no line.
- **Without the server**, the front end says how: :class:`InProcess` (the command's own
  process, its engine kept open for the next grading of ``grade watch``) or
  :class:`FreshProcess` (``python -m grader.serve --once``: the notebook never grades in the
  kernel).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal, Protocol

from grader.catalog import project_root
from grader.engine.api import GradeRequest
from grader.errors import InternalError, UsageError
from grader.results import Result
from grader.serve import client, launch, protocol
from grader.serve.runtime import Place, RuntimeFolderError, disabled, place
from grader.spec import ExerciseSpec

# When no server is running: grade without it and leave this process behind as the server,
# start one and grade there, or neither.
Start = Literal["hand-off", "spawn"] | None

ONCE_TIMEOUT_S = 600.0  # a fresh grading process (a grading's own limits are shorter)


def time_limit(spec: ExerciseSpec, request: GradeRequest) -> float:
    """How long a server may take over ``request``: twice the exercise's wall-clock limit per
    device pass (a server still warming up, a pass that starts a fresh child), and a minute."""
    return spec.limits.total_timeout_s * 2 * len(request.devices) + 60


def fallback_note(reason: str, where: str) -> str:
    """The one line a front end prints when the server is there but cannot be used
    (``where``: how it grades instead, :attr:`Elsewhere.where`)."""
    return f"Note: the grading server is not usable ({reason}); grading in {where} instead."


class Elsewhere(Protocol):
    """How a front end grades without the server."""

    where: str  # for the learner: "this process", "a separate process"

    def grade(self, request: GradeRequest) -> Result: ...

    def close(self) -> bool:
        """Release what grading held; whether anything was graded here."""
        ...


class Route:
    """Grades one front end's requests for ``spec``: on the server where one can be had (see
    the module's docstring), else with ``elsewhere``. Once a grading ran without the server,
    the next ones do too, until :meth:`close`."""

    def __init__(
        self,
        spec: ExerciseSpec,
        elsewhere: Elsewhere,
        *,
        use_server: bool = True,
        start: Start = None,
        root: Path | None = None,
    ) -> None:
        self.spec = spec
        self.elsewhere = elsewhere
        self.root = root or project_root()
        self.use_server = use_server and not disabled()
        self.start = start if self.use_server else None
        self._place: Place | None = None
        self._hand_off = False

    def grade(self, request: GradeRequest) -> Result:
        if self.use_server:
            try:
                return self._on_server(request)
            except client.Unavailable as exc:
                if not exc.quiet:
                    print(fallback_note(exc.reason, self.elsewhere.where), file=sys.stderr)
                self.use_server = False
                # a new server replaces a stale socket, or gives way to a live one
                self._hand_off = self.start == "hand-off" and self._place is not None
        return self.elsewhere.grade(request)

    def _on_server(self, request: GradeRequest) -> Result:
        try:
            self._place = place(self.root)
        except RuntimeFolderError as exc:
            raise client.Unavailable(str(exc)) from None
        limit = time_limit(self.spec, request)
        try:
            return client.grade(self._place, request, limit)
        except client.Unavailable as exc:
            if not exc.quiet or self.start != "spawn":
                raise
        try:
            launch.spawn(self._place)
        except launch.StartError as exc:
            raise client.Unavailable(f"it could not be started: {exc}") from None
        return client.grade(self._place, request, limit)

    def close(self, *, completed: bool = True) -> None:
        """Release what grading without the server held; after a completed command that graded
        here, leave a server behind for the next one (where ``start`` asked for that)."""
        graded = self.elsewhere.close()
        if graded and completed and self._hand_off and self._place is not None:
            self._hand_off = False
            launch.hand_off(self._place, self.root)


class InProcess:
    """Grades in this process, its engine opened on first use and kept open (``grade watch``
    grades again and again) until :meth:`close`. ``debug``: the engine keeps the hidden tests'
    own exceptions, for ``--debug`` to show."""

    where = "this process"

    def __init__(self, spec: ExerciseSpec, *, debug: bool = False) -> None:
        self.spec = spec
        self.debug = debug
        self.engine: Any = None

    def grade(self, request: GradeRequest) -> Result:
        from grader.serve.submission import check_devices

        if self.engine is None:
            from grader.engine import LocalEngine

            engine = LocalEngine(preload=[self.spec], debug=self.debug)
            check_devices(request.devices, engine.gpus)
            self.engine = engine.__enter__()
        else:
            check_devices(request.devices, self.engine.gpus)
        result: Result = self.engine.grade(request)
        return result

    def close(self) -> bool:
        if self.engine is None:
            return False
        self.engine.__exit__(None, None, None)
        self.engine = None
        return True


class FreshProcess:
    """Grades each request in a fresh ``python -m grader.serve --once``: the request on its
    stdin, the reply on its stdout. Whatever the grading does, it does outside this process."""

    where = "a separate process"

    def grade(self, request: GradeRequest) -> Result:
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "grader.serve", "--once"],
                input=protocol.encode(protocol.GradeCall(request)),
                capture_output=True,
                timeout=ONCE_TIMEOUT_S,
                env=dict(os.environ),
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InternalError(f"the grading process failed: {exc}") from None
        reply: Any
        try:
            reply = protocol.read_stream(
                io.BytesIO(proc.stdout), (protocol.ResultReply, protocol.ErrorReply)
            )
        except protocol.ProtocolError as exc:
            tail = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()[-3:]
            raise InternalError(
                f"the grading process gave no result ({exc}): {' / '.join(tail)}"
            ) from None
        if isinstance(reply, protocol.ErrorReply):
            if reply.error == protocol.USAGE:
                raise UsageError(reply.message, hint=reply.hint or None)
            raise InternalError(reply.message)
        result: Result = reply.result
        return result

    def close(self) -> bool:
        return False
