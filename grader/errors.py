"""The grader's own faults, as one small exception tree with exit codes.

Learner faults (a syntax error, an infinite loop, a crash) are never raised as these: they become
results. These exceptions are for the user's mistakes (a wrong exercise id, a missing file, a
malformed spec) and for the grader breaking. The CLI maps them to an exit code in one place and
prints ``Error: <message>`` without a traceback.
"""

from __future__ import annotations

import enum

from grader.text import inert


class ExitCode(enum.IntEnum):
    """The process exit codes of ``grade`` (the contract in DESIGN.md)."""

    OK = 0  # every graded test passed
    TESTS_FAILED = 1  # some graded test did not pass (or validate found a problem)
    USAGE = 2  # bad command line, unknown exercise, malformed spec, missing file
    INTERNAL = 3  # the grader itself broke


class GraderError(Exception):
    """Base of every error the grader reports to its user."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def format(self) -> str:
        """``Error: <message>`` and the hint, inert (:func:`grader.text.inert`): a message
        quotes what the user gave (a magic's line, a path, a name), and a control code or a
        lone surrogate in it must neither steer a terminal nor stop a notebook kernel from
        sending its stderr."""
        text = f"Error: {inert(self.message)}"
        if self.hint:
            text += f"\n{inert(self.hint)}"
        return text


class UsageError(GraderError):
    """The user asked for something that cannot be done as asked."""

    exit_code = ExitCode.USAGE


class SpecError(UsageError):
    """An exercise spec (YAML or one of its files) is malformed.

    The message always names the file, the field and how to fix it.
    """

    def __init__(self, path: object, field: str | None, problem: str, fix: str | None = None):
        where = f"{path}" + (f": field '{field}'" if field else "")
        message = f"{where}: {problem}"
        super().__init__(message, hint=f"Fix: {fix}" if fix else None)
        self.path = str(path)
        self.field = field
        self.problem = problem
        self.fix = fix


class InternalError(GraderError):
    """The grader broke: a bug or an environment problem, never the learner's fault."""

    exit_code = ExitCode.INTERNAL
