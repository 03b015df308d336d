"""Jupyter notebooks as submissions: the code cells of an ``.ipynb`` as one Python file.

Shared by batch intake (``grader.lms``) and the learner CLI (``grade 7 --file
exercise-07.ipynb``), so that a notebook is graded the same way wherever it comes from.

The format is Jupyter's nbformat 4 (any minor, 4.0 to 4.5: https://nbformat.readthedocs.io,
"The Notebook file format"): a JSON object with ``nbformat``, ``nbformat_minor``, ``metadata``
and ``cells``, each cell a ``cell_type`` (``code``, ``markdown``, ``raw``) with a ``source``.
It is read with nbformat and validated against nbformat's schema, with the code cells' outputs
left out of the check: outputs are never graded, and a learner cannot repair a broken plot.
A file that is not such a notebook raises ``NotebookError`` with a message for the learner.

What gets graded is every code cell, in order, joined into one source:

- IPython magics are not Python and are left out, each with a note naming the line:
  line magics (``%matplotlib inline``), shell lines (``!pip install torch``) and their
  assignment forms (``files = !ls``). A cell whose first line is a cell magic (``%%time``,
  ``%%capture``) is left out whole, since the magic decides what its body means; the grader's
  own ``%%grade`` magic is the exception: only that line goes. A magic inside a block is
  replaced by ``pass`` so the block stays valid. Lines inside brackets, strings or after a
  backslash are continuations and are never taken for magics (``(a\\n % b)`` is Python).
- Each cell is preceded by a ``# %% cell N`` line (Jupytext's "percent" format), so the joined
  file reads like the notebook.
- ``CellMap`` maps every line of the joined source back to the cell and the line in it.

Cell numbers count every cell from the top of the notebook, markdown and raw cells included,
starting at 1: that is what a learner can count while scrolling. Jupyter itself shows no cell
numbers, only ``In [7]`` execution counts, which change on every run and are absent in a fresh
notebook; where the notebook was saved with one, ``CellMap.describe`` adds it: "cell 4 (In
[7]), line 2".
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grader import wire
from grader.errors import UsageError
from grader.i18n import Text
from grader.text import source_lines

MAX_NOTEBOOK_BYTES = 32 << 20  # notebooks carry their outputs (plots): larger than .py files
# Jupyter writes notebooks a few levels deep (cells, outputs, widget state): 64 is far beyond it,
# and far below where validating or copying a nesting would exhaust the stack.
MAX_NOTEBOOK_DEPTH = 64
# Reading a notebook (the schema's check above all) is linear in its cells, about 15 us a
# cell: a cap bounds it by construction, where the byte cap alone let 100,000 one-line cells in.
# Course notebooks have tens of cells, the longest a few hundred.
MAX_CELLS = 10_000
MAX_NOTES = 20  # per notebook; the rest are counted
MAP_VERSION = 1
MAX_RUNS = 100_000  # runs of a cell map: one per cell at least, a notebook has far fewer
MAX_EXECUTION_COUNT = 10**9  # In [n] beyond this is no count Jupyter saved: not shown
_ASSIGN_MAGIC = re.compile(r"^[A-Za-z_][\w.]*\s*=\s*[!%]")
_GRADE_MAGIC = re.compile(r"^%%grade(\s|$)")
_SHELL = re.compile(r"^(?:[A-Za-z_][\w.]*\s*=\s*)?!")
# IPython's help: ``torch.arange?``, ``x??``, ``?torch.arange`` (never Python)
_HELP = re.compile(r"^(?:\?{1,2}[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\?{1,2})\s*$")
# A top-level call of IPython's display(), which plain Python does not have
_DISPLAY = re.compile(r"^display\s*\(")


class NotebookError(UsageError):
    """The file is not a notebook this grader can read; the message is for the learner."""


@dataclass(frozen=True)
class Run:
    """Consecutive lines of the joined source that come from consecutive lines of one cell."""

    line: int  # first line in the joined source (1-based)
    cell: int  # the cell, counted from the top of the notebook (1-based, every cell type)
    cell_line: int  # the first line's number within the cell (1-based)
    length: int


@dataclass(frozen=True)
class CellMap:
    """Where each line of a notebook's joined source came from."""

    runs: tuple[Run, ...] = ()
    execution_counts: tuple[tuple[int, int], ...] = ()  # (cell, In [n]) where saved

    def locate(self, line: int) -> tuple[int, int] | None:
        """(cell, line in the cell) of a line of the joined source; None for the lines the
        joining added (``# %% cell N`` markers and blank separators) or out of range."""
        starts = self._starts
        if starts is None:  # runs out of order (made by hand): the first that holds it
            found = next((r for r in self.runs if r.line <= line < r.line + r.length), None)
        else:  # the run that starts last at or before the line: a search, not a scan
            at = bisect.bisect_right(starts, line) - 1
            found = self.runs[at] if at >= 0 else None
        if found is None or not found.line <= line < found.line + found.length:
            return None
        return found.cell, found.cell_line + (line - found.line)

    @functools.cached_property
    def _starts(self) -> tuple[int, ...] | None:
        """The runs' first lines, where the runs are in order and apart (as extraction makes
        them and :meth:`from_dict` requires): every line of a report looks its cell up, and a
        scan per line made a notebook of 100,000 cells take hours to report."""
        runs = tuple(self.runs)
        if any(b.line < a.line + a.length for a, b in itertools.pairwise(runs)):
            return None
        return tuple(run.line for run in runs)

    @functools.cached_property
    def _counts(self) -> dict[int, int]:
        return dict(self.execution_counts)

    def execution_count(self, cell: int) -> int | None:
        return self._counts.get(cell)

    def where(self, line: int) -> tuple[int, int, int | None] | None:
        """(cell, line in the cell, the cell's saved ``In [n]`` or None) of a line of the
        joined source; None for a line the joining added."""
        found = self.locate(line)
        if found is None:
            return None
        cell, cell_line = found
        return cell, cell_line, self.execution_count(cell)

    def describe(self, line: int) -> str | None:
        """A line of the joined source as the learner finds it: "cell 4 (In [7]), line 2"."""
        where = self.where(line)
        if where is None:
            return None
        cell, cell_line, count = where
        shown = f"cell {cell}" + (f" (In [{count}])" if count is not None else "")
        return f"{shown}, line {cell_line}"

    def describe_zh(self, line: int) -> str | None:
        """The same in Chinese: "第 4 个单元格（In [7]）第 2 行"."""
        where = self.where(line)
        if where is None:
            return None
        cell, cell_line, count = where
        shown = f"第 {cell} 个单元格" + (f"（In [{count}]）" if count is not None else "")
        return f"{shown}第 {cell_line} 行"

    def to_dict(self) -> dict[str, Any]:
        return {
            "map_version": MAP_VERSION,
            "runs": [[r.line, r.cell, r.cell_line, r.length] for r in self.runs],
            "execution_counts": [[cell, count] for cell, count in self.execution_counts],
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "cells") -> CellMap:
        """Strict: the map is stored in result JSON and sent in requests, so anything
        unexpected is a :class:`~grader.wire.WireError` (a ValueError) naming the field."""
        f = wire.Fields(data, where, required=("map_version", "runs", "execution_counts"))
        f.integer("map_version", low=MAP_VERSION, high=MAP_VERSION)
        runs = tuple(
            Run(*wire.ints(item, at, 4, low=0))
            for at, item in f.sequence("runs", max_items=MAX_RUNS)
        )
        for at, (before, run) in enumerate(itertools.pairwise(runs), start=1):
            if run.line < before.line + before.length:  # extraction writes them in order
                wire.fail(f"{where}.runs[{at}]", "starts before the run ahead of it ends")
        counts = tuple(
            (cell, count)
            for cell, count in (
                wire.ints(item, at, 2)
                for at, item in f.sequence("execution_counts", max_items=MAX_RUNS)
            )
        )
        return cls(runs, counts)


# The notebook whose lines the grading's messages name: set by the trusted worker around each
# submission's tests (its faults, static checks and timeouts are worded there).
_naming: CellMap | None = None


@contextlib.contextmanager
def naming_lines_of(cells: CellMap | None) -> Iterator[None]:
    """Within: :func:`line_en` and :func:`line_zh` name the lines of this notebook (None: of a
    plain file). A learner who reads "line 7" of a notebook finds nothing there."""
    global _naming
    saved, _naming = _naming, cells
    try:
        yield
    finally:
        _naming = saved


def line_en(line: int) -> str:
    """A line of the learner's file as a message names it: "line 7", or in a notebook "cell 3,
    line 2" (a line the joining added has no cell: its number in the joined file is kept)."""
    described = _naming.describe(line) if _naming is not None else None
    return described or f"line {line}"


_ON_LINE = re.compile(r"\bon line (\d{1,9})\b")


def lines_named(message: str, shift: int = 0) -> str:
    """A message of Python's own (a syntax error's "expected an indented block after 'for'
    statement on line 4") with each line it names said as :func:`line_en` says it: in a
    notebook "on cell 2, line 3", where "line 4" of the joined source was nowhere the learner
    could find it. ``shift``: what to add to each (Python parsed a part of the file that
    starts later)."""
    if _naming is None and not shift:
        return message
    return _ON_LINE.sub(lambda m: f"on {line_en(int(m.group(1)) + shift)}", message)


def line_zh(line: int) -> str:
    """:func:`line_en` in Chinese: "第 7 行", or "第 3 个单元格第 2 行"."""
    described = _naming.describe_zh(line) if _naming is not None else None
    return described or f"第 {line} 行"


NO_CODE = Text(
    "the notebook has no code to grade (no code cells, or only magics)",
    "这个 notebook 没有可以评分的代码（没有代码单元格，或只有魔法命令）",
)


@dataclass(frozen=True)
class Extracted:
    """A notebook's code as one Python source, and how to find each line in the notebook."""

    source: str
    cells: CellMap
    # what was left out or changed, for the learner, in each language: a notebook's reader
    # may read it in Chinese, on a page of their own or in a class's feedback
    notes: tuple[Text, ...]


def extract(data: bytes) -> Extracted:
    """The code cells of a notebook file's bytes, joined; ``NotebookError`` when it is none."""
    nb = _read(data)
    lines: list[str] = []
    runs: list[Run] = []
    counts: list[tuple[int, int]] = []
    notes: list[Text] = []
    for number, cell in enumerate(nb["cells"], start=1):
        if cell.get("cell_type") != "code":
            continue
        kept = _code_lines(number, cell.get("source", ""), notes)
        if not any(text.strip() for _, text in kept):
            continue
        count = cell.get("execution_count")
        # Jupyter numbers runs from 1: a count it never writes is no "In [n]" to show
        if type(count) is int and 0 < count < MAX_EXECUTION_COUNT:
            counts.append((number, count))
        if lines:
            lines.append("")
        lines.append(f"# %% cell {number}")
        for cell_line, text in kept:
            joined = len(lines) + 1
            last = runs[-1] if runs else None
            if (
                last is not None
                and last.cell == number
                and last.line + last.length == joined
                and last.cell_line + last.length == cell_line
            ):
                runs[-1] = Run(last.line, number, last.cell_line, last.length + 1)
            else:
                runs.append(Run(joined, number, cell_line, 1))
            lines.append(text)
    if len(runs) > MAX_RUNS:  # a map the result could hold but no reader of it would take
        raise NotebookError(
            f"the notebook's code is broken into more than {MAX_RUNS:,} pieces by the magics "
            "left out of it: hand in a notebook of the exercise's cells, or a .py file"
        )
    if not runs:
        notes.append(NO_CODE)
    if len(notes) > MAX_NOTES:
        more = len(notes) - MAX_NOTES
        notes[MAX_NOTES:] = [Text(f"... and {more} more lines left out", f"……另有 {more} 行被略去")]
    source = "\n".join(lines) + "\n" if lines else ""
    return Extracted(source, CellMap(tuple(runs), tuple(counts)), tuple(notes))


def _read(data: bytes) -> dict[str, Any]:
    """Parse and validate; every way a file can fail to be a notebook is a NotebookError."""
    import nbformat

    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"the notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    if not data.strip():
        raise NotebookError("the notebook file is empty")
    try:
        raw = wire.loads(
            data, max_bytes=MAX_NOTEBOOK_BYTES, max_depth=MAX_NOTEBOOK_DEPTH, constants=True
        )
    except wire.WireError as exc:
        if "UTF-8" in exc.problem:
            raise NotebookError(
                "not a notebook: the file is not UTF-8 text (was another file renamed to .ipynb?)"
            ) from None
        raise NotebookError(
            f"not a notebook: the file is not a notebook's JSON ({exc.problem}); open it in "
            "Jupyter and save it again, or hand in a .py file"
        ) from None
    if isinstance(raw, dict) and "nbformat" in raw and "cells" not in raw:
        raise NotebookError(
            f"the notebook's format is nbformat {_shown(raw['nbformat'])} (its cells are not where "
            "nbformat 4 keeps them); this grader reads nbformat 4 (Jupyter since 2015): open it "
            "in a current Jupyter and save it again"
        )
    if not isinstance(raw, dict) or "cells" not in raw or "nbformat" not in raw:
        raise NotebookError(
            "not a notebook: a Jupyter notebook is a JSON object with 'nbformat' and 'cells'"
        )
    major = raw.get("nbformat")
    # the type too: 4.0 == 4 in Python, and nbformat's own validator asserts an int
    if type(major) is not int or major != 4:
        raise NotebookError(
            f"the notebook's format is nbformat {_shown(major)}; this grader reads nbformat 4 "
            "(Jupyter since 2015): open it in a current Jupyter and save it again"
        )
    minor = raw.get("nbformat_minor")
    if type(minor) is not int or minor < 0:
        # "nbformat 4; this grader reads nbformat 4" said nothing of what was wrong
        raise NotebookError(
            f"the notebook is damaged (its nbformat_minor is {_shown(minor)}, not a version "
            "number such as 5); open it in Jupyter and save it again"
        )
    _check_cells(raw["cells"])
    language = _language(raw)
    if language not in ("", "python"):
        raise NotebookError(
            f"the notebook's kernel runs {_word(language)}, not Python: hand in a Python notebook"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # nbformat's check writes into the cells it checks (ids where 4.5 lacks them):
            # it gets a copy of the notebook's first two levels, never a deep copy, which
            # cost as much again as the check itself
            checked = dict(
                raw, cells=[_checked(cell, raw["nbformat_minor"]) for cell in raw["cells"]]
            )
            nbformat.validate(checked)
    except nbformat.ValidationError as exc:
        raise NotebookError(
            f"the notebook is damaged ({_invalid(exc)}); open it in Jupyter and save it again"
        ) from None
    except Exception as exc:  # noqa: BLE001  # nbformat reads hostile JSON: any failure of it
        raise NotebookError(
            f"the notebook is damaged ({type(exc).__name__}: {str(exc)[:200]}); open it in "
            "Jupyter and save it again"
        ) from None
    return raw


def _checked(cell: dict[str, Any], minor: int) -> dict[str, Any]:
    """A cell as nbformat's schema is to check it: a code cell's outputs are never graded (a
    learner cannot repair a broken plot), and cell ids came with nbformat 4.5, though tools
    that mix versions (VS Code, an older Jupyter saving a newer notebook) write them into
    4.0-4.4 files, which Jupyter opens as they are."""
    checked = dict(cell)
    if checked.get("cell_type") == "code":
        checked["outputs"] = []
    if minor < 5:
        checked.pop("id", None)
    return checked


CELL_TYPES = ("code", "markdown", "raw")


def _check_cells(cells: Any) -> None:
    """Every cell an object of a kind a notebook has, named by its number where it is not:
    nbformat's own error showed the whole cell as a Python dict, with fields it had added."""
    if not isinstance(cells, list):
        raise NotebookError(
            f"the notebook is damaged (its cells are {_shown(cells)}, not a list); open it in "
            "Jupyter and save it again"
        )
    if len(cells) > MAX_CELLS:
        raise NotebookError(
            f"the notebook has {len(cells):,} cells, more than the {MAX_CELLS:,} this grader "
            "reads: hand in a notebook of the exercise's cells, or a .py file"
        )
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(
                f"the notebook is damaged (cell {number} is {_shown(cell)}, not a cell); open "
                "it in Jupyter and save it again"
            )
        kind = cell.get("cell_type")
        if not isinstance(kind, str) or kind not in CELL_TYPES:
            raise NotebookError(
                f"the notebook is damaged (cell {number} has cell_type {_shown(kind)}; a cell "
                "is code, markdown or raw); open it in Jupyter and save it again"
            )


def _invalid(exc: Exception) -> str:
    """nbformat's validation error in a learner's words: the cell and field it is in, and the
    reason, never a whole cell or notebook as Python shows it."""
    path = list(getattr(exc, "absolute_path", None) or ())
    if len(path) >= 2 and path[0] == "cells" and type(path[1]) is int:
        where = f"cell {path[1] + 1}" + "".join(f", {step}" for step in path[2:])
    else:
        where = ".".join(str(step) for step in path)
    message = str(getattr(exc, "message", "") or "").strip()
    first = message.splitlines()[0] if message else ""
    # the schema's messages begin with the offending value as Python shows it: left out
    try:
        shown = repr(getattr(exc, "instance", None))
    except Exception:  # noqa: BLE001 - a value nbformat made: any failure to show it
        shown = ""
    if shown and first.startswith(shown + " "):
        first = "the value " + first[len(shown) + 1 :]
    if not first or "is not valid under any of the given schemas" in first or len(first) > 120:
        first = "a value the notebook format does not allow"
    return f"{where}: {first}" if where else first


def _shown(value: Any) -> str:
    """A value read from the notebook, short, as JSON writes it (it may be anything)."""
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:40] + "..."
        return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)  # the JSON reader refuses integers past Python's digit limit
        return text if len(text) <= 40 else text[:40] + "..."
    return "a list" if isinstance(value, list) else "an object"


_WORD = re.compile(r"[\w.+#-]{1,40}", re.ASCII)


def _word(text: str) -> str:
    """A name read from the notebook (a kernel's language) as it is where it is a plain word,
    else quoted and cut as :func:`_shown` does."""
    return text if _WORD.fullmatch(text) else _shown(text)


def _language(raw: dict[str, Any]) -> str:
    metadata = raw.get("metadata")
    if not isinstance(metadata, dict):
        return ""
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str):
            return value[field].strip().lower()
    return ""


def _cell_text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _at(cell: int, line: int | None = None) -> tuple[str, str]:
    """A place in the notebook as a note names it: "cell 3, line 2", "第 3 个单元格第 2 行"."""
    if line is None:
        return f"cell {cell}", f"第 {cell} 个单元格"
    return f"cell {cell}, line {line}", f"第 {cell} 个单元格第 {line} 行"


def _left_out(cell: int, line: int, shown: str, en: str, zh: str) -> Text:
    """A note that the line ``shown`` was left out, and why (``en``, ``zh``)."""
    at_en, at_zh = _at(cell, line)
    return Text(f"{at_en}: {shown} left out ({en})", f"{at_zh}：略去了 {shown}（{zh}）")


def _code_lines(number: int, source: Any, notes: list[Text]) -> list[tuple[int, str]]:
    """The cell's lines that are Python, as (line in cell, text), magics left out with notes."""
    text = _cell_text(source)
    cell_lines = source_lines(text)
    first = next((i for i, line in enumerate(cell_lines) if line.strip()), None)
    if first is not None and cell_lines[first].lstrip().startswith("%%"):
        magic = cell_lines[first].strip()
        if not _GRADE_MAGIC.match(magic):
            name = magic.split()[0]
            at_en, at_zh = _at(number)
            notes.append(
                Text(
                    f"{at_en}: left out whole: it starts with the cell magic {name}, which runs "
                    "the cell as something other than plain Python",
                    f"{at_zh}：整个单元格被略去：它以单元格魔法命令 {name} 开头，这样的单元格不是作为普通 "
                    "Python 运行的",
                )
            )
            return []
        notes.append(
            _left_out(number, first + 1, magic, "the grader's magic", "评分器自己的魔法命令")
        )
        cell_lines = list(cell_lines)
        cell_lines[first] = ""
    kept: list[tuple[int, str]] = []
    scanner = _Continuation()
    for index, line in enumerate(cell_lines, start=1):
        stripped = line.lstrip()
        if scanner.at_statement_start() and (
            stripped.startswith(("%", "!")) or _ASSIGN_MAGIC.match(stripped)
        ):
            shell = bool(_SHELL.match(stripped))
            notes.append(
                _left_out(
                    number,
                    index,
                    stripped[:80],
                    "a shell command, not Python" if shell else "a magic, not Python",
                    "这是 shell 命令，不是 Python" if shell else "这是魔法命令，不是 Python",
                )
            )
            indent = line[: len(line) - len(stripped)]
            if indent:
                kept.append((index, f"{indent}pass"))
            continue
        if scanner.at_statement_start() and _HELP.match(stripped):
            notes.append(
                _left_out(
                    number,
                    index,
                    stripped[:80],
                    "IPython's help, not Python",
                    "这是 IPython 的帮助，不是 Python",
                )
            )
            indent = line[: len(line) - len(stripped)]
            if indent:
                kept.append((index, f"{indent}pass"))
            continue
        display = scanner.at_statement_start() and bool(_DISPLAY.match(line))
        scanner.feed(line)
        if display and scanner.at_statement_start():  # the whole call, on its line
            notes.append(
                _left_out(
                    number,
                    index,
                    stripped[:80],
                    "display() exists only in IPython",
                    "display() 只在 IPython 中存在",
                )
            )
            continue
        kept.append((index, line))
    while kept and not kept[-1][1].strip():  # trailing blank lines of the cell
        kept.pop()
    while kept and not kept[0][1].strip():
        kept.pop(0)
    return kept


class _Continuation:
    """Tracks, line by line, whether the next line continues a statement: inside brackets or
    a triple-quoted string, or after a backslash. Enough of Python's lexer for that, no more."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # the open string's quote, tripled for triple quotes
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            c = line[i]
            if self.quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
                i += 1
                continue
            if c == "#":
                return
            if c in "'\"":
                self.quote = c * 3 if line.startswith(c * 3, i) else c
                i += len(self.quote)
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        if line.endswith("\\"):
            self.backslash = True
        elif self.quote is not None and len(self.quote) == 1:
            self.quote = None  # an unterminated one-line string: a syntax error, not ours
