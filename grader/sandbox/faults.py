"""Learner faults as the trusted side sees them: exceptions that become verdicts, not crashes.

A hidden test that calls the learner's code may get one of these instead of an answer. The pytest
plugin turns each into the test's status (``failed``, ``error`` or ``timeout``) and its learner-
facing message; nothing here is a grader error.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal

from grader.i18n import Text
from grader.notebooks import line_en, line_zh, lines_named
from grader.sandbox.messages import ErrorFrame, ErrorInfo
from grader.text import (
    another_encoding,
    declaration_line,
    line_at,
    line_text,
    refused_declaration,
)

_MISSING = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,99}) is not defined$")


class LearnerFault(BaseException):
    """The learner's code did not produce an answer.

    A BaseException, not an Exception: hidden-test code that catches ``Exception`` (and
    hypothesis, which would retry and shrink) never swallows a missing answer.
    """

    status = "error"

    def __init__(
        self, message: Text, *, evidence: tuple[str, ...] = (), error: ErrorInfo | None = None
    ) -> None:
        super().__init__(message.en)
        self.message = message
        self.evidence = evidence
        self.error = error

    @property
    def frames(self) -> tuple[ErrorFrame, ...]:
        return self.error.frames if self.error is not None else ()


class LearnerRaised(LearnerFault):
    """The learner's function raised an exception."""

    status = "failed"

    @property
    def type_name(self) -> str:
        return self.error.type if self.error is not None else ""

    @property
    def mro(self) -> list[str]:
        return list(self.error.classes) if self.error is not None else []

    @property
    def text(self) -> str:
        return self.error.message if self.error is not None else ""


class LearnerUnavailable(LearnerFault):
    """The learner's file did not import, or lacks the function asked for."""


class LearnerTimeout(LearnerFault):
    status = "timeout"


class LearnerCrashed(LearnerFault):
    """The learner's process ended during a call (exit, signal, memory limit)."""


class AnswerUnreadable(LearnerFault):
    """The learner's code answered with something that is not a well-formed value."""


# What Python says when it cannot read a source file's bytes as text: a byte no UTF-8 text holds
# (a file saved as GBK, Windows-1252, or UTF-16 with its byte order mark), or zero bytes (UTF-16
# or UTF-32 text, or a damaged file: the bytes tell which).
_UNREADABLE_TEXT = re.compile(
    r"Non-UTF-8 code starting with|source code (string )?cannot contain null bytes"
    r"|\(unicode error\) 'utf-8' codec can't decode"
)


def _unnamed_line(message: str, source: bytes) -> int | None:
    """The line of the learner's file a syntax error without a line is about, read from the
    file's bytes: its null byte's, or its coding declaration's, where Python refused it."""
    if refused_declaration(message):
        found = declaration_line(source)
        if found is not None:
            return found
    if b"\0" in source:
        return line_at(source, source.index(b"\0"))
    return None


def raised(
    error: ErrorInfo, function: str, during_import: bool = False, source: bytes | None = None
) -> LearnerFault:
    """The fault for an exception reported by the learner's side. ``source``: the learner's
    file as the trusted side holds it, where the import failed (the evidence that it was saved
    in another encoding than UTF-8)."""
    type_name = error.type
    text = error.message
    shown = error.shown
    if during_import or error.kind == "import":
        if (
            (type_name == "SyntaxError" or "SyntaxError" in error.classes)
            and _UNREADABLE_TEXT.search(text)
            and source is not None
            and another_encoding(source)
        ):
            return LearnerUnavailable(
                Text(
                    "Your file is not saved as UTF-8 text, the encoding Python reads source files "
                    f"in, so Python cannot read it ({lines_named(text)}).",
                    "你的文件没有保存为 UTF-8 文本（Python 读取源文件所用的编码），所以 Python 无法"
                    f"读取它（{lines_named(text)}）。",
                ),
                evidence=("syntax_error", "source_not_utf8"),
                error=error,
            )
        if type_name == "SyntaxError" or "SyntaxError" in error.classes:
            line = error.frames[0].line if error.frames else None
            if not line and source is not None:
                # Python names no line (None, or 0) for a null byte or for an encoding
                # declaration it refuses: "at line ?" pointed nowhere, and the fix says "fix
                # the line shown"
                line = _unnamed_line(text, source)
                if line and error.frames:
                    # and its code, which Python quoted none of: the frame showed an empty line
                    first = error.frames[0]
                    code = first.code or line_text(source, line)
                    error = dataclasses.replace(
                        error,
                        frames=(
                            dataclasses.replace(first, line=line, code=code),
                            *error.frames[1:],
                        ),
                    )
            text = lines_named(text)
            return LearnerUnavailable(
                Text(
                    f"Your file has a syntax error at {line_en(line) if line else 'line ?'}: "
                    f"{text}",
                    f"你的文件{line_zh(line) if line else '第 ? 行'}有语法错误：{text}",
                ),
                evidence=("syntax_error",),
                error=error,
            )
        if type_name == "SystemExit":
            return LearnerUnavailable(
                Text(
                    "Your file called sys.exit() while being imported; code at the top level of the "
                    'file runs on import, so put it under `if __name__ == "__main__":`.',
                    "你的文件在被导入时调用了 sys.exit()；文件顶层的代码会在导入时执行，"
                    '请把它放进 `if __name__ == "__main__":` 之下。',
                ),
                evidence=("exit_at_import",),
                error=error,
            )
        return LearnerUnavailable(
            Text(
                f"Importing your file raised {shown}",
                f"导入你的文件时抛出了 {shown}",
            ),
            evidence=("import_error",),
            error=error,
        )
    if error.kind == "missing":
        # A scenario (a hidden test's code run in the learner's process) reaches the learner's
        # functions itself: the one missing is the one the child names, not the scenario.
        named = _MISSING.match(error.message)
        function = named.group(1) if named else function
        return LearnerUnavailable(
            Text(
                f"Your file does not define `{function}`. Keep the function names of the starter file.",
                f"你的文件中没有定义 `{function}`。请保留初始文件中的函数名。",
            ),
            evidence=("missing_function",),
            error=error,
        )
    if error.kind == "answer":
        return AnswerUnreadable(
            Text(
                f"{function} returned a value the grader cannot read: {text}",
                f"{function} 返回了评分器无法读取的值：{text}",
            ),
            evidence=("unreadable_answer",),
            error=error,
        )
    if type_name == "SystemExit":
        return LearnerCrashed(
            Text(
                f"{function} called sys.exit(); return a value instead of ending the program.",
                f"{function} 调用了 sys.exit()；请返回结果，而不是结束程序。",
            ),
            evidence=("exit_in_call",),
            error=error,
        )
    if type_name == "NotImplementedError" and _raised_by_learner(error):
        return LearnerRaised(
            Text(
                f"{function} is not implemented yet (it raised NotImplementedError).",
                f"{function} 还没有实现（抛出了 NotImplementedError）。",
            ),
            evidence=("not_implemented",),
            error=error,
        )
    en, zh = f"{function} raised {shown}", f"{function} 抛出了异常 {shown}"
    shapes = error.frames[-1].shapes if error.frames else ()
    if shapes and _SHAPE_ERROR.search(text):
        told = _shapes_named(error.frames[-1].line, shapes)
        en, zh = en.rstrip(".") + ". " + told.en, zh + told.zh
    # the diagnosis clone-keeps-strides says why and what to do; the message stays PyTorch's
    clone_viewed = bool(
        _VIEW_REFUSED.search(text)
        and error.frames
        and _CLONE_THEN_VIEW.search(error.frames[-1].code)
    )
    evidence = ("view_after_clone",) if clone_viewed else ()
    return LearnerRaised(Text(en, zh), evidence=evidence, error=error)


# view() refused for the layout, on a tensor that is a clone in the same expression
_VIEW_REFUSED = re.compile(r"view size is not compatible with input tensor's size and stride")
_CLONE_THEN_VIEW = re.compile(r"\.clone\([^()]*\)\s*\.view\(")


# Errors about sizes that do not fit: the message gives the sizes, never which operand had them
_SHAPE_ERROR = re.compile(
    r"must match the size of tensor|Attempting to broadcast|cannot be multiplied"
    r"|size mismatch|is invalid for input of size|Expected size|expected size|shape mismatch"
    r"|number of dimensions|dimension out of range|Dimension out of range"
)


def _shapes_named(line: int, shapes: tuple[tuple[str, tuple[int, ...]], ...]) -> Text:
    """ "On line 28: inter has shape (3, 2), area_a (3,)." for the tensors the line names."""
    shown = [(name, _shape_text(shape)) for name, shape in shapes]
    first, *rest = shown
    en = f"On {line_en(line)}: {first[0]} has shape {first[1]}" + "".join(
        f", {name} {shape}" for name, shape in rest
    )
    zh = f"（{line_zh(line)}：{first[0]} 的形状为 {first[1]}" + "".join(
        f"，{name} 为 {shape}" for name, shape in rest
    )
    return Text(en + ".", zh + "。）")


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else f"({', '.join(map(str, shape))})"


def _raised_by_learner(error: ErrorInfo) -> bool:
    """A starter's stub (``raise NotImplementedError``), not PyTorch's own NotImplementedError
    (e.g. "Cannot copy out of meta tensor; no data!")."""
    return bool(error.frames) and "NotImplementedError" in error.frames[-1].code


def ended(
    status: int | None, function: str, during_import: bool, memory_mb: int, file_mb: int = 64
) -> LearnerCrashed:
    """The fault for a child that died; ``status`` is its waitpid status if known.

    SIGXFSZ: it wrote a file past RLIMIT_FSIZE, or the sandbox stopped it for writing more than
    ``file_mb`` to its scratch folder (both the one quota, ``ChildLimits.file_mb``)."""
    where_en = "while your file was being imported" if during_import else f"during {function}"
    where_zh = "在导入你的文件时" if during_import else f"在运行 {function} 时"
    evidence: tuple[str, ...] = (
        ("process_died", "import_crashed") if during_import else ("process_died",)
    )
    if status is not None and os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        en = (
            f"Your code ended the process {where_en} (exit code {code}, e.g. os._exit()). "
            "Return a value instead of exiting."
        )
        zh = f"你的代码{where_zh}结束了进程（退出码 {code}，例如 os._exit()）。请返回结果，而不是退出。"
        evidence += ("process_exit",)
    elif status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if sig == signal.SIGSEGV:
            en = f"Your code crashed the process {where_en} with a segmentation fault ({name})."
            zh = f"你的代码{where_zh}使进程因段错误（{name}）崩溃。"
            evidence += ("segfault",)
        elif sig == signal.SIGXCPU:
            en = f"Your code used up its CPU time {where_en} ({name})."
            zh = f"你的代码{where_zh}用完了 CPU 时间（{name}）。"
            evidence += ("cpu_limit",)
        elif sig == signal.SIGXFSZ:
            en = (
                f"Your code wrote more than {file_mb} MiB to its folder {where_en} and was "
                f"stopped ({name}): a submission's files may hold {file_mb} MiB in all."
            )
            zh = (
                f"你的代码{where_zh}向其文件夹写入了超过 {file_mb} MiB 的数据，因而被停止"
                f"（{name}）：一份提交的文件总共最多 {file_mb} MiB。"
            )
            evidence += ("file_limit",)
        elif sig == signal.SIGKILL:
            en = (
                f"The process running your code was killed {where_en} ({name}); it may have "
                f"used more than the {memory_mb} MB of memory allowed."
            )
            zh = f"运行你代码的进程{where_zh}被终止（{name}）；它可能使用了超过允许的 {memory_mb} MB 内存。"
            evidence += ("killed",)
        else:
            en = f"The process running your code died {where_en} from signal {name}."
            zh = f"运行你代码的进程{where_zh}因信号 {name} 而终止。"
    else:
        en = f"The process running your code ended unexpectedly {where_en}."
        zh = f"运行你代码的进程{where_zh}意外结束。"
    return LearnerCrashed(Text(en, zh), evidence=evidence)
