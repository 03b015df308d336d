"""What every command's parser shares: errors as UsageErrors, ``--lang``, ``--device``.

Public, so that every front end (and an instructor's own script) parses the same way; nothing
below the CLI imports it.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from grader.errors import UsageError
from grader.i18n import LANGS


class Parser(argparse.ArgumentParser):
    """argparse, but its errors are UsageErrors (one line, exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"See `{self.prog} --help`.")


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
