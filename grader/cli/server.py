"""The warm server as the command line shows it: ``grade server status|start|stop``.

How the learner's commands grade (through the server when one answers, else in their own
process) is :mod:`grader.serve.route`, shared with the notebook's magics.
"""

from __future__ import annotations

import time
from typing import Any

from grader.catalog import project_root
from grader.errors import ExitCode, UsageError
from grader.options import Parser
from grader.serve import client, launch
from grader.serve.runtime import RuntimeFolderError, disabled, place

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
    if info.learner_uids_stop > info.learner_uids_start:
        print(f"Learner uids: {info.learner_uids_start}-{info.learner_uids_stop - 1}")
    print(f"Socket: {where.socket}   Log: {where.log}")
    return ExitCode.OK


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
