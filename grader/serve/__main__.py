"""``python -m grader.serve``: run the warm server (what ``grade`` starts by itself).

    python -m grader.serve            in the foreground, logging to stderr (Ctrl-C ends)
    python -m grader.serve --detach   in the background; returns once it answers
    python -m grader.serve --once     grade one request read from stdin, answer on stdout

``--once`` speaks the server's protocol over its standard streams instead of a socket: a
front end that must not grade in its own process (the notebook) uses it when no server can be
had, so that it still grades in a fresh process.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.serve", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--detach", action="store_true", help="run in the background")
    mode.add_argument("--once", action="store_true", help="grade one request from stdin")
    parser.add_argument("--idle", type=float, default=None, help="idle timeout in seconds")
    args = parser.parse_args(argv)
    if args.idle is not None:
        import os

        os.environ["GRADE_SERVER_IDLE"] = str(args.idle)
    if args.once:
        from grader.serve.once import grade_once

        return grade_once(sys.stdin.buffer, sys.stdout.buffer)

    from grader.catalog import project_root
    from grader.serve import launch
    from grader.serve.runtime import RuntimeFolderError, idle_timeout, place

    root = project_root()
    try:
        where = place(root)
    except RuntimeFolderError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if args.detach:
        return launch.detach(where, root)
    from grader.serve.server import Server

    launch.prepare_signals()
    try:
        return Server(where, root, idle_timeout()).run()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
