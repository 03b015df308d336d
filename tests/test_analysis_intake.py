"""The analysis reads the whole file, fast, and fails closed on what it cannot read."""

from __future__ import annotations

import ast
import random
import time
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.analysis import (
    Analysis,
    Unanalysable,
    analyse,
    forbidden_uses,
    intake,
    loops_in,
    review,
)
from tests.conftest import ROOT

HONEST = """import torch


def pick(scores, labels):
    return scores.gather(1, labels[:, None])[:, 0]
"""


def problem(source):
    analysis = Analysis(source)
    assert not analysis.ok
    with pytest.raises(Unanalysable):
        analysis.reach("pick")
    with pytest.raises(Unanalysable):
        loops_in(analysis, "pick")
    with pytest.raises(Unanalysable):
        forbidden_uses(analysis, "pick", ["softmax"])
    assert [f.kind for f in review(analysis)] == ["unanalysable"]
    return analysis.problem


def test_an_honest_file_is_analysed():
    analysis = Analysis(HONEST)
    assert analysis.ok and analysis.problem is None
    assert analysis.defines("pick") and not analysis.defines("other")


@pytest.mark.parametrize(
    ("source", "kind", "line"),
    [
        ("def pick(:\n    pass\n", "syntax", 1),
        (HONEST + "\n\ndef other(x)\n    return x\n", "syntax", 8),
        ("x = 1\x00\n" + HONEST, "null_bytes", 1),
        ("x = " + "(" * 300 + ")" * 300 + "\n" + HONEST, "syntax", 1),
        ("x = " + "-" * 100_000 + "1\n" + HONEST, "too_deep", 1),
        ("x = a" + ".b" * 100_000 + "\n" + HONEST, "too_deep", 1),
        ("x = " + "not " * 50_000 + "y\n" + HONEST, "too_deep", 1),
        ("# -*- coding: utf-7 -*-\n" + HONEST + "#+AAo-pick = 1\n", "encoding", 1),
        (
            "#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n" + HONEST + "N = 'é'\n",
            "encoding",
            2,
        ),
        ("# coding: no-such-codec\n" + HONEST, "encoding", 1),
    ],
)
def test_what_cannot_be_analysed_fails_closed(source, kind, line):
    found = problem(source)
    assert found.kind == kind
    assert found.line == line
    assert found.en and found.zh


def test_a_syntax_error_far_into_a_long_file_is_found():
    padding = "".join(f"def pad_{i}(x):\n    return x + {i}\n\n\n" for i in range(20_000))
    source = HONEST + padding + "def broken(:\n    pass\n" + padding
    found = problem(source)
    assert found.kind == "syntax"
    assert found.line == (HONEST + padding).count("\n") + 1


def test_utf8_cookies_and_a_bom_are_fine():
    assert Analysis("# -*- coding: utf-8 -*-\n" + HONEST).ok
    assert Analysis("# coding=UTF8\n" + HONEST).ok
    assert Analysis("\ufeff" + HONEST).ok


def test_bytes_are_decoded_as_python_decodes_them():
    latin = ("# coding: latin-1\n" + HONEST + "NAME = 'caf\xe9'\n").encode("latin-1")
    assert Analysis(latin).ok
    utf7 = b"# coding: utf-7\nimport torch\n#+AAo-pick = torch.softmax\n"
    analysis = Analysis(utf7)
    assert analysis.ok  # decoded as Python runs it: the "comment" is code
    assert [u.line for u in forbidden_uses(analysis, "pick", ["softmax"])] == [
        4
    ]  # as Python counts
    assert problem(b"x = '\xff'\n").kind == "encoding"


@given(
    cookie=st.sampled_from(["ascii", "latin-1", "cp1252", "utf-8-sig", "utf-7", "utf-16"]),
    value=st.text(st.sampled_from("aAGE+-/é€ "), max_size=8),
    comment=st.text(st.sampled_from("aAGE+-/é€ "), max_size=8),
)
def test_a_cookie_is_refused_exactly_when_it_changes_what_python_runs(cookie, value, comment):
    """The grader reads a file as UTF-8. A cookie for another encoding is refused where its
    bytes may mean something else there (``# coding: utf-7`` turns ``+AAo-`` in a comment into a
    line break), and accepted where they read alike: ``# coding: ascii`` on an ASCII file was
    flagged as reaching into the grader's internals, and its checks failed."""
    text = f"# -*- coding: {cookie} -*-\nvalue = {value!r}  # {comment}\n"
    try:
        runs = ast.dump(ast.parse(text.encode("utf-8")))  # as Python runs the file's bytes
    except (SyntaxError, ValueError):
        runs = None
    analysis = Analysis(text)
    if analysis.ok:  # never a file whose code means something else to Python
        assert runs == ast.dump(ast.parse(text))
    try:
        alike = text.encode("utf-8").decode(cookie) == text
    except UnicodeError:
        alike = False
    if alike:  # nothing of it reads otherwise: nothing to flag
        assert analysis.ok, analysis.problem


def test_warnings_do_not_change_the_verdict():
    source = HONEST + 'PATTERN = "\\d+"\nN = 1if True else 2\n'
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Analysis(source).ok


def test_unexpected_errors_fail_closed(monkeypatch):
    from grader.testing.analysis import core

    analysis = Analysis(HONEST)

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(core, "_reach", broken)
    with pytest.raises(Unanalysable):
        analysis.reach("pick")
    assert analysis.problem.kind == "internal"
    with pytest.raises(Unanalysable):  # and it stays failed
        loops_in(analysis, "pick")


# -- blocks ------------------------------------------------------------------------------------


def blocks_of(text):
    blocks = intake.split(text)
    assert "".join(text[b.start : b.end] for b in blocks) == text
    for block in blocks:
        assert block.line == text.count("\n", 0, block.start) + 1
        intake.parse(text[block.start : block.end], block.line)
    return blocks


def test_a_small_file_is_one_block():
    assert len(blocks_of(HONEST)) == 1


def test_blocks_never_cut_inside_a_statement():
    hard = (
        'DOC = """\n'
        + "def not_code():\n    pass\n" * 2000  # col-0 lines inside a string
        + '"""\n'
        + "VALUES = [\n"
        + "1,\n" * 3000  # col-0 lines inside brackets
        + "]\n"
        + "@staticmethod\n" * 3
        + "def decorated():\n    pass\n"
        + "TOTAL = 1 + \\\n"
        + "2\n" * 1
        + "if True:\n    pass\n"
        + "else:\n    pass\n" * 1
        + "try:\n    pass\nexcept Exception:\n    pass\nfinally:\n    pass\n"
    ) * 20
    blocks = blocks_of(hard)
    assert len(blocks) > 1


def test_statements_reach_across_blocks():
    padding = "".join(f"def pad_{i}(x):\n    return x + {i}\n\n\n" for i in range(5000))
    source = (
        "import torch.nn.functional as F\n" + padding + "def pick(x):\n    return F.softmax(x, 1)\n"
    )
    analysis = Analysis(source)
    assert len(analysis.model.blocks) > 10
    uses = forbidden_uses(analysis, "pick", ["softmax"])
    assert [(u.name, u.line) for u in uses] == [("torch.nn.functional.softmax", source.count("\n"))]
    # Only what the question needed was parsed.
    assert len(analysis.model.parsed) < len(analysis.model.blocks) // 2


def test_names_bound_far_away_are_found():
    padding = "".join(f"def pad_{i}(x):\n    return x + {i}\n\n\n" for i in range(5000))
    star = "from torch.nn.functional import *\n" + padding + "def f(x):\n    return softmax(x, 1)\n"
    assert [(u.name, u.computed) for u in forbidden_uses(star, "f", ["softmax"])] == [
        ("torch.nn.functional.softmax", False)
    ]
    later = (
        padding
        + "def f(x):\n    return helper(x)\n"
        + padding
        + "def helper(x):\n    return [v for v in x]\n"
    )
    assert [(x.kind, x.function) for x in loops_in(later, "f")] == [
        ("list comprehension", "helper")
    ]


# -- shapes: a block's shape parses only if the block does --------------------------------------

INVALID = [
    "x = 0777\n",
    "x = 1__0\n",
    "x = 1_000_\n",
    "x = 0b102\n",
    "x = 0o78\n",
    "x = 0x1g\n",
    "x = 1e\n",
    "x = 123abc\n",
    "x = a.1\n",
    'x = f"{y!z}"\n',
    'x = f"{y!rr}"\n',
    'x = f"{}"\n',
    'x = "\\N{NO SUCH NAME AT ALL}"\n',
    'x = "\\xZZ"\n',
    'x = "\\u12"\n',
    'x = b"caf\xe9"\n',
    'x = "a" b"b"\n',
    'print "hello"\n',
    "def = 1\n",
    "class = 2\n",
    "None = 1\n",
    "x = (1,\n",
    'x = """unterminated\n',
    "x = 'unterminated\n",
    "x = [1 2]\n",
    "x² = 1\n",
    "f(**x, *y)\n",
    "def f(x=1, y):\n    pass\n",
    "x = 1 if y\n",
    "for x in y:\npass\n",
    "@deco\nx = 1\n",
]


@pytest.mark.parametrize("text", INVALID)
def test_the_shape_of_invalid_code_is_invalid(text):
    assert not _parses(text)
    shape, _ = intake._shape(intake._Literals(text).code)
    assert not intake._shape_parses(shape)[0], shape


def _parses(text):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def test_shapes_of_mutated_real_code_are_sound():
    # Random one-character edits of real files: whenever an edit breaks the file, its shape
    # must not parse either (the shape may fail where the file does not: that only costs a
    # real parse).
    rng = random.Random(7)
    files = sorted(ROOT.glob("solutions/*/*.py")) + sorted(ROOT.glob("grader/testing/*.py"))
    texts = [p.read_text(encoding="utf-8") for p in files]
    alphabet = "()[]{}:'\"\\#=.,!0123456789abcxyz_ \n\tfbrN{}@*"
    checked = 0
    for _ in range(600):
        text = rng.choice(texts)
        i = rng.randrange(len(text))
        if rng.random() < 0.5:
            mutated = text[:i] + text[i + 1 :]
        else:
            mutated = text[:i] + rng.choice(alphabet) + text[i:]
        shape, _ = intake._shape(intake._Literals(mutated).code)
        if intake._shape_parses(shape)[0]:
            assert _parses(mutated), (files[texts.index(text)], i, mutated[max(0, i - 40) : i + 40])
            checked += 1
    assert checked > 100


# -- speed -----------------------------------------------------------------------------------

SOLUTION = (ROOT / "solutions" / "exercise-08" / "exercise-08.py").read_text(encoding="utf-8")
FUNCTION = '''

def pad_{i}(x, y):
    """Padding number {i}."""
    z = torch.exp(x) + y.sum({i}) * 0.5
    if z.shape[0] > 2:
        return z[:, None] * 2.0
    return torch.stack([z, z], dim=1)
'''
MIB = 1 << 20
HIDDEN = "\n\ndef softmax_rows(x):\n    return torch.softmax(x, dim=1)\n"


def _padded(kind: str) -> str:
    """The reference solution with 4 MiB of padding, then the forbidden call."""
    if kind == "comments":
        piece = lambda i: "# padding to make the file long\n"  # noqa: E731
    elif kind == "docstring":
        return SOLUTION + 'PAD = """\n' + "padding line\n" * (4 * MIB // 13 + 1) + '"""\n' + HIDDEN
    elif kind == "functions":
        piece = FUNCTION.format
    elif kind == "chinese":
        piece = FUNCTION.replace('"""Padding', '# 填充：让文件变长\n    """填充').format
    else:
        piece = "value_{0} = {0} * 2 + 1\n".format
    parts, size, i = [], 0, 0
    while size < 4 * MIB:
        part = piece(i=i) if kind in ("functions", "chinese") else piece(i)
        parts.append(part)
        size += len(part)
        i += 1
    return SOLUTION + "".join(parts) + HIDDEN


@pytest.mark.parametrize("kind", ["comments", "docstring", "functions", "chinese", "assignments"])
def test_a_4_mib_file_is_analysed_in_well_under_a_second(kind):
    source = _padded(kind)
    assert len(source) >= 4 * MIB
    intake._SHAPES.clear()
    started = time.process_time()
    analysis = analyse.__wrapped__(source)
    uses = forbidden_uses(analysis, "softmax_rows", ["softmax", "log_softmax", "softmin"])
    loops = loops_in(analysis, "softmax_rows")
    findings = review(analysis)
    elapsed = time.process_time() - started
    # The forbidden call far past the first 200,000 characters is found.
    assert [u.name for u in uses] == ["torch.softmax"]
    assert uses[0].line == source.count("\n")
    assert loops == [] and findings == []
    assert elapsed < 1.0, f"{kind}: {elapsed:.2f} s"
