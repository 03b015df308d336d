"""Reading a learner's file for static analysis: decode it, prove it parses, split it in blocks.

A file is parsed as *blocks*: runs of consecutive top-level statements, about ``BLOCK_CHARS``
long, cut at lines that start a statement. Python's grammar parses top-level statements
independently, so a file is valid exactly when every block is, and a block can be parsed for
real (with its names) only when a check needs it. That keeps a 4 MiB file fast without reading
less of it:

* Every block is checked for syntax. The check parses the block's *shape*: the text with every
  identifier that is not a keyword replaced by ``a`` and every plain decimal integer by ``1``,
  which parses exactly when the block does (names and integer values never decide syntax, and
  the few places where the letters do are left alone: string prefixes, escapes, f-string
  conversions, keywords). Shapes are cached, so padding made of generated code costs one parse.
* A cut that lands inside a statement (a col-0 line inside a bracket or a string the splitter
  missed) makes the block before it fail to parse; such blocks are merged with the next ones,
  and if that does not help the whole file is parsed at once. A syntax error is therefore
  never mistaken for a cut, and a cut never hides code.

Anything that keeps a file from being read this way (a syntax error, null bytes, nesting so deep
that the parser gives up, a coding cookie other than UTF-8, an unexpected exception) is a
:class:`Problem`: the checks built on the analysis fail on it, never pass.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import gc
import io
import keyword
import re
import tokenize
import warnings
from dataclasses import dataclass

from grader.notebooks import line_en, line_zh, lines_named
from grader.text import PythonSource, wide_text

BLOCK_CHARS = 8192
_MERGE_LIMIT = 32  # blocks merged onto one that does not parse before parsing the whole file

# A coding cookie (PEP 263) on the first two lines.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)

# Words kept as they are in a block's shape: keywords, soft keywords, and names that the parser
# treats specially.
_KEEP = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"__debug__", "__future__"}

# A block's shape is made in three passes. (1) Comments (runs of comment lines) become "#";
# string literals become "" when neither an escape, a prefix nor an f-string expression can
# make them invalid; f-strings keep their quotes and have their inside shaped like code; other
# literals stay as they are. (2) Words become "a", except keywords and the words whose letters
# the parser reads: a string prefix before a quote, an escape after a backslash, an f-string
# conversion after "!". (3) Plain decimal integers become "1".
_LITERAL = re.compile(
    r"""(?P<comment>\#[^\n]*(?:\n[ \t]*\#[^\n]*)*)
      | (?P<string>\"\"\"(?:[^"\\]+|\\.|"(?!""))*(?:\"\"\"|\Z)
                  | '''(?:[^'\\]+|\\.|'(?!''))*(?:'''|\Z)
                  | "(?:[^"\\\n]+|\\.)*"?
                  | '(?:[^'\\\n]+|\\.)*'?)
    """,
    re.VERBOSE | re.DOTALL,
)
_PREFIX = re.compile(r"(?<![A-Za-z0-9_])[rRbBuUfF]{1,2}\Z")


def _alternation(words) -> str:
    """A regex matching exactly these words, as a trie (much faster than a flat list)."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(c) + build(sub) for c, sub in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# (The patterns start with a character class where they can: Python's regex engine skips ahead
# fast only to a literal or a class.)
_WORD = re.compile(
    r"(?=[A-Za-z_])(?<![\\!A-Za-z0-9_])(?!"
    + _alternation(_KEEP)
    + r"\b)[A-Za-z_][A-Za-z0-9_]*\b(?!['\"])",
    re.ASCII,
)
_INTEGER = re.compile(r"[1-9](?<![A-Za-z0-9_][1-9])[0-9]*\b", re.ASCII)
_WORDS = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*", re.ASCII)

_STAR_IMPORT = re.compile(r"import[\s\\(]*\*")

# A newline before a line that may start a top-level statement.
_START = re.compile(r"\n(?![\s#)\]}]|(?:else|elif|except|finally)\b)")


@dataclass(frozen=True)
class Problem:
    """Why a file cannot be analysed (learner-facing, in both languages)."""

    kind: str  # syntax, null_bytes, too_deep, encoding, internal
    line: int
    en: str
    zh: str


class Unanalysable(Exception):
    def __init__(self, problem: Problem):
        super().__init__(problem.en)
        self.problem = problem


@dataclass
class Block:
    """A run of top-level statements: ``text[start:end]``, from line ``line`` on."""

    index: int
    start: int
    end: int
    line: int
    words: frozenset[str]  # the identifier-like words of its code (not comments, plain strings)
    ascii: bool  # its code (outside comments and plain strings) is ASCII
    attr_store: bool  # does it assign or delete an attribute anywhere (from its shape)
    star_import: bool = True  # may it have `from m import *` (binding names it does not spell)
    tree: list[ast.stmt] | None = None  # parsed on demand, with the file's line numbers

    def joined(self) -> str:
        """Its words, one a line (for searching them with a regex)."""
        text = self.__dict__.get("_joined")
        if text is None:
            text = self.__dict__["_joined"] = "\n".join(sorted(self.words))
        return text

    def mentions(self, names: set[str] | frozenset[str]) -> bool:
        """Whether the block may refer to any of ``names``. Non-ASCII blocks always may:
        Python reads identifiers after NFKC normalisation (a fullwidth ``ｓｏｆｔｍａｘ``
        is ``softmax``)."""
        return not self.ascii or not self.words.isdisjoint(names)


def decode(source: str | bytes) -> str:
    """The text Python would run. Bytes are decoded as Python decodes a source file, and so is
    a :class:`PythonSource` (the learner's file as the grading read it); any other text must
    not declare an encoding other than UTF-8 (it was read as UTF-8, so it would not be what
    Python runs: ``# coding: utf-7`` turns a comment into code), unless its bytes read alike
    in that encoding."""
    if isinstance(source, bytes):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
            text = source.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
            raise Unanalysable(
                Problem(
                    "encoding",
                    1,
                    f"Your file is not valid text in its encoding ({exc}); save it as UTF-8.",
                    f"你的文件不是有效的文本（{exc}）；请以 UTF-8 编码保存。",
                )
            ) from None
        return text.removeprefix("\ufeff")
    text = str(source).removeprefix("\ufeff")
    if isinstance(source, PythonSource):
        return text  # already read as Python reads it, in the encoding it declares
    for number, line in enumerate(text.split("\n", 2)[:2], start=1):
        match = _COOKIE.match(line)
        if not match:
            continue
        try:
            name = codecs.lookup(match.group(1)).name
        except LookupError:
            name = match.group(1)
        if name != "utf-8" and not _reads_alike(text, name):
            raise Unanalysable(
                Problem(
                    "encoding",
                    number,
                    f"{_capital(line_en(number))} of your file declares the encoding "
                    f"{match.group(1)!r}; "
                    "the grader reads files as UTF-8. Save the file as UTF-8 and remove that "
                    "line.",
                    f"你的文件{line_zh(number)}声明了编码 {match.group(1)!r}；评分器按 UTF-8 读取文件。"
                    "请以 UTF-8 保存文件并删除这一行。",
                )
            )
    return text


def _reads_alike(text: str, encoding: str) -> bool:
    """Whether the file's bytes (``text`` as UTF-8) mean ``text`` in ``encoding`` too: then the
    cookie changes nothing Python runs (``# coding: ascii`` on an ASCII file, ``latin-1`` on one
    without accents, ``utf-8-sig``), and the file was flagged for nothing."""
    try:
        return text.encode("utf-8").decode(encoding) == text
    except (UnicodeError, LookupError):
        return False


def _ast_parse(text: str) -> ast.Module:
    """ast.parse without warnings (an invalid escape is a warning, or an error under -W error,
    but the learner's process imports the file with the default filters) and without the
    cyclic garbage collector, which would otherwise run over and over on the new nodes (it
    makes parsing two to three times slower)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    finally:
        if enabled:
            gc.enable()


def parse(text: str, line: int = 1, shift: bool = True) -> list[ast.stmt]:
    """Parse ``text`` (starting at ``line`` of the file) or raise :class:`Unanalysable`. The
    nodes get the file's line numbers unless ``shift`` is false (the caller shifts them)."""
    try:
        tree = _ast_parse(text)
    except SyntaxError as exc:
        where = (exc.lineno or 1) + line - 1
        # the lines Python's message names ("... 'for' statement on line 4") are the block's:
        # the file's, as the learner finds them
        msg = lines_named(str(exc.msg), shift=line - 1)
        raise Unanalysable(
            Problem(
                "syntax",
                where,
                f"Your file has a syntax error at {line_en(where)} ({msg}), so the grader "
                "cannot check it.",
                f"你的文件{line_zh(where)}有语法错误（{msg}），评分器无法检查它。",
            )
        ) from None
    except (RecursionError, MemoryError):
        raise Unanalysable(
            Problem(
                "too_deep",
                line,
                "Your file nests expressions or blocks so deeply that Python cannot parse it; "
                "write it with fewer levels of nesting.",
                "你的文件中表达式或代码块嵌套得太深，Python 无法解析；请减少嵌套层数。",
            )
        ) from None
    except ValueError as exc:  # e.g. null bytes
        raise Unanalysable(
            Problem(
                "syntax",
                line,
                f"Python cannot read your file ({exc}).",
                f"Python 无法读取你的文件（{exc}）。",
            )
        ) from None
    if line != 1 and shift:
        for node in _walk_nodes(tree):
            if hasattr(node, "lineno"):
                node.lineno += line - 1
                end = getattr(node, "end_lineno", None)
                if end is not None:
                    node.end_lineno = end + line - 1
    return tree.body


def _walk_nodes(tree: ast.AST):
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


# Shapes seen, and whether they parse (with their attribute-store flag). Shapes repeat across
# submissions (the starter's blocks), so the cache is kept for the process, bounded.
_SHAPES: dict[str, tuple[bool, bool]] = {}
_SHAPES_MAX = 16 << 20  # characters of shapes kept
_shapes_size = 0


class _Literals:
    """The file with its literals shaped (pass 1, done once for the whole file), the strings
    that span lines, and a map from offsets in the file to offsets in the shaped text."""

    def __init__(self, text: str):
        self.multiline_starts: list[int] = []
        self.multiline_ends: list[int] = []
        ends: list[int] = []  # end offset in the file of each replaced literal
        shifts: list[int] = []  # how much shorter the shaped text is after it
        shift = 0

        def literal(match: re.Match[str]) -> str:
            nonlocal shift
            found = match.group()
            if match.lastgroup == "comment":
                new = "#"
            else:
                start = match.start()
                prefix = _PREFIX.search(text, max(0, start - 3), start)
                new = _string_shape(prefix.group().lower() if prefix else "", found)
                if "\n" in found:
                    self.multiline_starts.append(start)
                    self.multiline_ends.append(match.end())
            if len(new) != len(found):
                shift += len(found) - len(new)
                ends.append(match.end())
                shifts.append(shift)
            return new

        self.code = _LITERAL.sub(literal, text)
        self._ends = ends
        self._shifts = shifts

    def offset(self, position: int) -> int:
        """Where ``position`` of the file (outside any literal) is in the shaped text."""
        i = bisect.bisect_right(self._ends, position) - 1
        return position - (self._shifts[i] if i >= 0 else 0)

    def inside_multiline_string(self, position: int) -> int | None:
        """The end of the string that spans lines around ``position``, if any."""
        i = bisect.bisect_right(self.multiline_starts, position) - 1
        if i >= 0 and self.multiline_ends[i] > position:
            return self.multiline_ends[i]
        return None


def _string_shape(prefix: str, body: str) -> str:
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    size = len(quote)
    closed = len(body) >= 2 * size and body.endswith(quote)
    inner = body[size:-size] if closed else ""
    if closed:
        slashes = len(inner) - len(inner.rstrip("\\"))
        closed = slashes % 2 == 0
    if not closed or "b" in prefix:
        return body  # invalid anyway, or bytes (whose content the parser checks)
    if "f" in prefix:
        return body  # its expressions are code: shaped with the words around it
    if "\\" in inner and "r" not in prefix:
        return body  # escapes such as \N{NAME} are checked by the parser
    return '""'


def _shape(code: str) -> tuple[str, frozenset[str]]:
    """Passes 2 and 3 on a block whose literals are shaped, and the words of its code: not of
    its comments or plain strings, since code reaches a name written in a string only through
    a function whose own name is a word here (getattr, import_module, ...)."""
    return _INTEGER.sub("1", _WORD.sub("a", code)), frozenset(_WORDS.findall(code))


def _shape_parses(shape: str) -> tuple[bool, bool]:
    known = _SHAPES.get(shape)
    if known is not None:
        return known
    try:
        tree = _ast_parse(shape)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        result = (False, False)
    else:
        result = (True, _has_attribute_store(tree, shape))
    global _shapes_size
    if _shapes_size + len(shape) > _SHAPES_MAX:
        _SHAPES.clear()
        _shapes_size = 0
    _SHAPES[shape] = result
    _shapes_size += len(shape)
    return result


# A comprehension whose target may be an attribute (`[0 for a.b in c]`, legal and rare).
_COMPREHENSION_ATTRIBUTE = re.compile(r"for\b[^\n]*?\.[^\n]*?\bin\b")


def _has_attribute_store(tree: ast.Module, shape: str) -> bool:
    """Whether the block assigns or deletes an attribute. Only statement targets can (and the
    target of a comprehension, checked with a full walk when the shape may have one)."""
    if "." not in shape:
        return False
    if _COMPREHENSION_ATTRIBUTE.search(shape):
        return any(
            isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
            for node in _walk_nodes(tree)
        )
    stack: list[ast.AST] = list(tree.body)
    while stack:
        statement = stack.pop()
        for target in _targets(statement):
            for node in _walk_nodes(target):
                if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                    return True
        for name in ("body", "orelse", "finalbody"):
            stack.extend(getattr(statement, name, None) or ())
        for handler in getattr(statement, "handlers", None) or ():
            stack.extend(handler.body)
        for case in getattr(statement, "cases", None) or ():
            stack.extend(case.body)
    return False


def _targets(statement: ast.AST) -> list[ast.AST]:
    if isinstance(statement, (ast.Assign, ast.Delete)):
        return list(statement.targets)
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        return [statement.target]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [i.optional_vars for i in statement.items if i.optional_vars is not None]
    return []


def _cuts(text: str, literals: _Literals) -> list[int]:
    """Offsets where blocks start (0 first), about BLOCK_CHARS apart, each at the start of a
    line that may start a statement."""
    cuts = [0]
    pos = BLOCK_CHARS
    n = len(text)
    while pos < n:
        match = _START.search(text, pos - 1)
        if match is None:
            break
        cut = match.end()
        if cut >= n:
            break
        end = literals.inside_multiline_string(cut)
        if end is not None:
            pos = end + 1
            continue
        previous = text.rfind("\n", 0, cut - 1) + 1
        if text.startswith("@", previous) or text.endswith("\\\n", 0, cut):
            pos = cut + 1  # a decorator belongs to what follows; a backslash continues the line
            continue
        cuts.append(cut)
        pos = cut + BLOCK_CHARS
    return cuts


def split(text: str) -> list[Block]:
    """The file's blocks, each proven to parse, or :class:`Unanalysable`."""
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        if wide_text(text):
            raise Unanalysable(
                Problem(
                    "null_bytes",
                    1,
                    "Your file is saved as UTF-16 or UTF-32 (a zero byte beside every "
                    "character), not as UTF-8; Python cannot run it. Save it as UTF-8.",
                    "你的文件保存成了 UTF-16 或 UTF-32（每个字符旁边都有零字节），而不是 UTF-8；"
                    "Python 无法运行它。请把它保存为 UTF-8。",
                )
            )
        raise Unanalysable(
            Problem(
                "null_bytes",
                line,
                f"Your file contains a null byte ({line_en(line)}); Python cannot run it.",
                f"你的文件包含空字节（{line_zh(line)}）；Python 无法运行它。",
            )
        )
    if "barry_as_FLUFL" in text:  # a __future__ import that changes the grammar of later blocks
        return _whole(text)
    literals = _Literals(text)
    cuts = _cuts(text, literals) + [len(text)]
    shaped = [literals.offset(c) for c in cuts]
    code = literals.code
    blocks: list[Block] = []
    line = 1
    i = 0
    while i < len(cuts) - 1:
        for j in range(i + 1, min(i + 2 + _MERGE_LIMIT, len(cuts))):
            shape, words = _shape(code[shaped[i] : shaped[j]])
            ok, attr_store = _shape_parses(shape)
            if ok:
                break
            chunk = text[cuts[i] : cuts[j]]
            if _parses(chunk):  # a shape that fails where the text does not (\N{NAME})
                ok, attr_store = True, True
                break
        if not ok:
            return _whole(text)
        chunk = text[cuts[i] : cuts[j]]
        # Identifiers are what NFKC normalisation changes: a block counts as ASCII when its
        # code is (non-ASCII comments and plain strings do not matter).
        ascii_code = code[shaped[i] : shaped[j]].isascii()
        star = "import" in words and _STAR_IMPORT.search(chunk) is not None
        blocks.append(
            Block(len(blocks), cuts[i], cuts[j], line, words, ascii_code, attr_store, star)
        )
        line += chunk.count("\n")
        i = j
    return blocks


def _parses(text: str) -> bool:
    try:
        _ast_parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _whole(text: str) -> list[Block]:
    """The whole file as one block, parsed now (raises the file's own error if any)."""
    tree = parse(text)
    _, words = _shape(_Literals(text).code)
    return [Block(0, 0, len(text), 1, words, text.isascii(), True, True, tree)]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
