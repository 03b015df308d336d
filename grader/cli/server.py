"""The warm server as the command line uses it: ``grade server status|start|stop``, and how the
learner's commands grade (through the server when one answers, else in their own process).

``grade ID`` with no server running grades in its own process and then hands that process off
as the server; ``grade watch ID`` starts one first. Whenever a server is there but cannot be
used (a stale socket, a folder other users can open, an answer that makes no sense, a server
that died mid-grading) the command says so in one line on stderr and grades in its own process:
the learner gets the same result either way. ``--no-server`` or ``GRADE_NO_SERVER=1`` keep
every grading in the command's own process.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Literal

from grader.catalog import project_root
from grader.engine.api import GradeRequest
from grader.errors import ExitCode, UsageError
from grader.options import Parser
from grader.results import Result
from grader.serve import client, launch
from grader.serve.runtime import Place, RuntimeFolderError, disabled, place
from grader.spec import ExerciseSpec

# When no server is running: grade here and leave this process behind as the server, start
# one and grade there, or neither.
Start = Literal["hand-off", "spawn"] | None


def fallback_line(reason: str) -> str:
    return f"Note: the grading server is not usable ({reason}); grading in this process instead."


class Grader:
    """Grades one command's requests for ``spec``.

    ``use_server``: try the warm server first; ``start``: when none is running, ``"hand-off"``
    (grade here, then leave this process behind as the server: ``grade ID``), ``"spawn"``
    (start one and grade there: ``grade watch``) or ``None``. Once a grading has run here, the
    engine stays open for the next (``grade watch``) until :meth:`close`.
    """

    def __init__(
        self, spec: ExerciseSpec, *, use_server: bool, start: Start, debug: bool = False
    ) -> None:
        self.spec = spec
        self.root = project_root()
        # --debug shows the hidden tests' own exceptions from this process's engine records,
        # which a server's grading would not leave here: debugging grades here
        self.debug = debug
        self.use_server = use_server and not disabled() and not debug
        self.start = start if self.use_server else None
        self._engine: Any = None
        self._place: Place | None = None
        self._hand_off = False

    def grade(self, request: GradeRequest) -> Result:
        if self.use_server and self._engine is None:
            try:
                return self._on_server(request)
            except client.Unavailable as exc:
                if not exc.quiet:
                    print(fallback_line(exc.reason), file=sys.stderr)
                self.use_server = False
                # a new server replaces a stale socket, or gives way to a live one
                self._hand_off = self.start == "hand-off" and self._place is not None
        return self._here(request)

    def _on_server(self, request: GradeRequest) -> Result:
        try:
            self._place = place(self.root)
        except RuntimeFolderError as exc:
            raise client.Unavailable(str(exc)) from None
        limit = self.spec.limits.total_timeout_s * 2 * len(request.devices) + 60
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

    def _here(self, request: GradeRequest) -> Result:
        from grader.submission import check_devices

        if self._engine is None:
            from grader.engine import LocalEngine

            engine = LocalEngine(preload=[self.spec], debug=self.debug)
            check_devices(request.devices, engine.gpus)
            self._engine = engine.__enter__()
        else:
            check_devices(request.devices, self._engine.gpus)
        result: Result = self._engine.grade(request)
        return result

    def show_faults(self, label: str) -> None:
        """With --debug: the hidden tests' own exceptions of the last grading, on stderr."""
        if self.debug and self._engine is not None:
            from grader.cli.debug import show_faults

            show_faults(self._engine, label)

    def close(self, *, completed: bool = True) -> None:
        """Close the engine; after a completed command that graded here, leave a server behind
        for the next one (where that was asked for)."""
        if self._engine is not None:
            self._engine.__exit__(None, None, None)
            self._engine = None
            if completed and self._hand_off and self._place is not None:
                launch.hand_off(self._place, self.root)


# -- grade server ------------------------------------------------------------------------------


def cmd_server(argv: list[str]) -> int:
    parser = Parser(
        prog="grade server",
        description="The warm grading server that `grade` starts by itself: see it, start it "
        "or stop it. There is one per user account and course: only your own user id can reach "
        "it, and each course, checkout or Python environment has its own.",
    )
    parser.add_argument("action", choices=("status", "start", "stop"))
    parser.add_argument(
        "--idle",
        type=float,
        default=None,
        help="start: seconds without a grading before it exits (default: GRADE_SERVER_IDLE, "
        "else 900)",
    )
    args = parser.parse_args(argv)
    if args.idle is not None and args.idle <= 0:
        raise UsageError("--idle must be more than 0 seconds")
    root = project_root()
    try:
        where = place(root)
    except RuntimeFolderError as exc:
        raise UsageError(str(exc)) from None
    if args.action == "status":
        return _status(where)
    if args.action == "stop":
        try:
            stopped = client.stop(where)
        except client.Unavailable as exc:
            raise UsageError(f"the server did not stop: {exc.reason}") from None
        print("The grading server stopped." if stopped else "No grading server is running.")
        return ExitCode.OK
    if disabled():
        raise UsageError("GRADE_NO_SERVER is set: unset it to use the grading server")
    try:
        running = client.status(where)
    except client.Unavailable:
        running = None
    if running is None:
        import os

        if args.idle is not None:
            os.environ["GRADE_SERVER_IDLE"] = str(args.idle)
        try:
            launch.spawn(where)
        except launch.StartError as exc:
            raise UsageError(f"the grading server did not start: {exc}") from None
    return _status(where)


def _status(where: Any) -> int:
    try:
        info = client.status(where)
    except client.Unavailable as exc:
        print(f"No grading server is running ({exc.reason}).")
        print(f"Socket: {where.socket}")
        return ExitCode.TESTS_FAILED
    since = time.strftime("%H:%M:%S", time.localtime(info.started))
    left = max(0.0, info.idle_timeout_s - info.idle_s)
    print(f"The grading server is running (pid {info.pid}, grader {info.version}).")
    print(f"Started at {since}; gradings served: {info.served}.")
    print(
        f"Idle for {_duration(info.idle_s)}; it exits after {_duration(info.idle_timeout_s)} "
        f"idle ({_duration(left)} from now), or when the grader or the exercises change."
    )
    print(f"Course: {info.root}")
    print(f"Isolation: {info.isolation}")
    print(f"Socket: {where.socket}   Log: {where.log}")
    return ExitCode.OK


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
