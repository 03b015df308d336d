"""The options every front end parses the same way: errors as UsageErrors, ``--lang``,
``--device``.

The ``grade`` command and the notebook magics (``%%grade 7 --device cpu``) both read them, so
they live here, below both front ends, and not in the CLI: nothing below the CLI may import it.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from grader.errors import UsageError
from grader.i18n import LANGS


class Parser(argparse.ArgumentParser):
    """argparse, but its errors are UsageErrors (one line, exit code 2). A parser without
    ``--help`` (a magic's) shows its usage line instead of pointing at the help."""

    def error(self, message: str) -> NoReturn:
        if self.add_help:
            raise UsageError(message, hint=f"See `{self.prog} --help`.")
        usage = self.format_usage().strip().removeprefix("usage: ")
        raise UsageError(message, hint=f"Usage: {usage}")


def add_lang(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="language of instructions, messages and reports (default: from the locale)",
    )


def add_device(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all", help=help)


def selected_devices(device: str) -> tuple[str, ...]:
    """``--device`` as the devices a grading asks for."""
    return ("cpu", "cuda") if device == "all" else (device,)


def positive(value: int | None, option: str) -> None:
    if value is not None and value < 1:
        raise UsageError(f"{option} must be at least 1")
