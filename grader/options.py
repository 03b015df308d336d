"""The options every front end parses the same way: errors as UsageErrors, ``--course``,
``--lang``, ``--device``, ``--debug``.

The ``grade`` command and the notebook magics (``%%grade 7 --device cpu``) both read them, so
they live here, below both front ends, and not in the CLI: nothing below the CLI may import it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from grader import course
from grader.errors import UsageError
from grader.i18n import LANGS
from grader.text import shown


class Parser(argparse.ArgumentParser):
    """argparse, but its errors are UsageErrors (one line, exit code 2), and every command
    takes ``--course DIR``: the course is chosen here, once, before the command runs (see
    :mod:`grader.course`). Without one (no option, no ``GRADER_COURSE``), a command run inside
    a course folder uses that folder, and says so on stderr. A magic's parser
    (``course=False``, no ``--help``) takes no ``--course`` and shows its usage line instead of
    pointing at the help."""

    def __init__(self, *args: Any, course: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.takes_course = course
        if not course:
            return  # a magic: the kernel's course is GRADER_COURSE's, else the built-in one
        self.add_argument(
            "--course",
            type=path_arg,
            metavar="DIR",
            default=None,
            help="the course folder (exercises/, solutions/, diagnoses.yaml) to work on "
            "(default: GRADER_COURSE, else the current folder if it is a course, else the "
            "built-in course)",
        )

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        self._given = list(sys.argv[1:] if args is None else args)
        parsed = super().parse_args(args, namespace)
        if not self.takes_course:
            return parsed
        if parsed.course is not None:
            course.select(parsed.course)
        else:
            here = course.from_here()
            if here is not None:
                print(
                    f"Using the course in {here.root} (this folder holds exercises/ and "
                    "solutions/; --course DIR chooses another).",
                    file=sys.stderr,
                )
        return parsed

    def error(self, message: str) -> NoReturn:
        dashed = self._dashed()
        missing = "expected one argument" in message or "arguments are required" in message
        if dashed is not None and missing:
            # argparse reads a value that starts with - as an option: `--file -x.py` said
            # "expected one argument", `grade batch -subs` that no folder was given
            message += (
                f" ({shown(dashed)[:80]!r} was read as an option; a file or folder whose name "
                f"starts with - is written ./{shown(dashed)[:80]})"
            )
        if self.add_help:
            raise UsageError(message, hint=f"See `{self.prog} --help`.")
        usage = self.format_usage().strip().removeprefix("usage: ")
        raise UsageError(message, hint=f"Usage: {usage}")

    def _dashed(self) -> str | None:
        """The first argument that starts with - and is none of this parser's options (nor a
        negative number, nor ``-`` alone): a name argparse took for an option."""
        for arg in getattr(self, "_given", []):
            if arg == "--":
                return None
            if not arg.startswith("-") or arg == "-" or _NEGATIVE.match(arg):
                continue
            if arg.split("=", 1)[0] not in self._option_string_actions:
                return arg
        return None


_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse's own test for a negative number


def path_arg(text: str) -> Path:
    """A path option's value. An empty one (``--out ""``, a shell variable that was not set) is
    refused: as a Path it is the current folder, where ``grade batch --out ""`` wrote its
    outputs."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; give a file or folder")
    return Path(text)


SEED_RANGE = (-(2**63), 2**64 - 1)  # what torch.manual_seed and a grading request take


def seed_arg(text: str) -> int:
    """``--seed``: a whole number torch can seed with. Out of range, local grading took it and
    the warm server refused the request, which was said to be the server's fault."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    low, high = SEED_RANGE
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be between {low} and {high}")
    return value


def text_arg(text: str) -> str:
    """A value that names something (``--student``): an empty one named everyone."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value")
    return text


def add_lang(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="language of instructions, messages and reports (default: from the locale)",
    )


def add_device(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all", help=help)


def add_debug(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--debug",
        action="store_true",
        help="also show, on stderr, the traceback of any exception the hidden tests' own code "
        "raised (for exercise authors)",
    )


def selected_devices(device: str) -> tuple[str, ...]:
    """``--device`` as the devices a grading asks for."""
    return ("cpu", "cuda") if device == "all" else (device,)


def positive(value: int | None, option: str) -> None:
    if value is not None and value < 1:
        raise UsageError(f"{option} must be at least 1")
