"""The checks built on the analysis: bilingual failures with evidence, and fail closed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grader.authoring.scaffold import scaffold
from grader.catalog import Catalog
from grader.errors import SpecError
from grader.spec import ForbiddenSpec, FunctionSpec, Text
from grader.testing import (
    CheckFailed,
    assert_no_loops,
    assert_not_called,
    assert_not_forbidden,
)

HEADER = "import torch\nimport torch.nn.functional as F\n\n\n"


@dataclass
class Record:
    functions: dict = field(default_factory=dict)
    ops: int | None = None
    aten_ops: dict = field(default_factory=dict)


@dataclass
class Exercise:
    forbidden: tuple
    functions: tuple = (FunctionSpec("softmax_rows", ""), FunctionSpec("row_max", ""))


WHY = Text("Write it yourself.", "请自己实现它。")
SOFTMAX = ForbiddenSpec(("softmax",), ("softmax_rows",), WHY)
GROUP = ForbiddenSpec(("log_softmax", "softmin"), ("softmax_rows",), WHY)


def failure(check, *args, **kwargs) -> CheckFailed:
    with pytest.raises(CheckFailed) as info:
        check(*args, **kwargs)
    failed = info.value
    assert failed.message.en and failed.message.zh and failed.message.en != failed.message.zh
    assert "assert" not in failed.message.en  # no test code in learner-facing text
    return failed


# -- assert_no_loops ----------------------------------------------------------------------------


def test_no_loops_passes_vectorised_code():
    assert_no_loops(HEADER + "def pick(s, l):\n    return s.gather(1, l[:, None])[:, 0]\n", "pick")


def test_no_loops_names_the_lines_and_helpers():
    source = HEADER + (
        "def _row(r):\n    return [v for v in r]\n\n"
        "def pick(s, l):\n    out = []\n    for r in s:\n        out.append(_row(r))\n"
        "    return list(map(torch.stack, out))\n"
    )
    failed = failure(assert_no_loops, source, "pick")
    assert failed.message.en == (
        "pick loops in Python (line 6: a list comprehension in _row; line 10: a for loop; "
        "line 12: map(...)); express it with tensor operations (broadcasting, reductions "
        "along a dim) instead."
    )
    assert (
        "第 6 行：_row 中的列表推导式；第 10 行：for 循环；第 12 行：map(...)" in failed.message.zh
    )
    assert failed.evidence == ("op_count_grows", "python_loop_in_source")
    assert [x["line"] for x in failed.data["loops"]] == [6, 10, 12]


def test_no_loops_reports_recursion():
    source = HEADER + "def pick(s, l):\n    return s if len(s) < 2 else pick(s[1:], l)\n"
    failed = failure(assert_no_loops, source, "pick")
    assert "line 6: recursion pick -> pick" in failed.message.en
    assert "递归 pick -> pick" in failed.message.zh


def test_no_loops_with_logarithmic_growth():
    scan = HEADER + (
        "def scan(x):\n    step = 1\n    while step < x.shape[0]:\n"
        "        x = x + F.pad(x[:-step], (0, 0, step, 0))\n        step *= 2\n    return x\n"
    )
    failure(assert_no_loops, scan, "scan")
    assert_no_loops(scan, "scan", growth="logarithmic")
    linear = scan.replace("step *= 2", "step += 1")
    failed = failure(assert_no_loops, linear, "scan", growth="logarithmic")
    assert "doubling" in failed.message.en and "倍增" in failed.message.zh


@pytest.mark.parametrize(
    "source",
    [
        "def pick(s, l:\n    return s\n",
        "def pick(s, l):\n    return s\n\x00",
        "x = " + "-" * 100_000 + "1\ndef pick(s, l):\n    return s\n",
        # a cookie whose encoding changes what Python runs (in UTF-7 "+AAo-" is a line break)
        "# coding: utf-7\ndef pick(s, l):\n    return s\n#+AAo-pick = None\n",
    ],
)
def test_no_loops_fails_closed(source):
    failed = failure(assert_no_loops, source, "pick")
    assert failed.evidence == ("source_unanalysable",)  # no diagnosis of a loop
    assert "cannot check" in failed.message.en and "无法检查" in failed.message.zh


def test_no_loops_fails_when_the_function_cannot_be_found():
    failed = failure(assert_no_loops, HEADER + "exec('def pick(s, l): return s')\n", "pick")
    assert failed.evidence in (("source_unanalysable",), ("source_computed_names",))
    failed = failure(assert_no_loops, HEADER + "def other(x):\n    return x\n", "pick")
    assert "cannot find" in failed.message.en and "找不到" in failed.message.zh


def test_no_loops_fails_on_names_reached_through_strings():
    source = HEADER + (
        "import builtins\n\ndef pick(s, l, how='m' + 'ap'):\n"
        "    return getattr(builtins, how)(torch.exp, s)\n"
    )
    failed = failure(assert_no_loops, source, "pick")
    assert failed.evidence == ("source_computed_names",)
    assert "getattr(...)" in failed.message.en


def test_the_whole_file_is_read_however_long():
    padding = "".join(f"def pad_{i}(x):\n    return x + {i}\n\n\n" for i in range(20_000))
    source = HEADER + padding + "def pick(s, l):\n    return [v for v in s]\n"
    assert len(source) > 400_000
    failed = failure(assert_no_loops, source, "pick")
    assert f"line {source.count(chr(10))}: a list comprehension" in failed.message.en


# -- assert_not_forbidden ---------------------------------------------------------------------


def test_a_forbidden_call_seen_only_in_the_trace_is_named_as_learners_know_it():
    """A library routine that calls softmax inside: only the trace sees it; the message names
    the torch function, not the ATen operator it dispatched to."""
    source = HEADER + "def softmax_rows(x):\n    return helper_from_a_library(x)\n"
    record = Record({"torch.softmax": 1}, aten_ops={"aten._softmax.default": 1})
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source, record)
    assert "torch.softmax" in failed.message.en and "aten." not in failed.message.en
    only_aten = Record({}, aten_ops={"aten._softmax.default": 1})
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source, only_aten)
    assert "aten._softmax.default" in failed.message.en  # nothing else to name


def test_not_forbidden_keeps_its_message():
    # The message that tests/golden/results/ex08-forbidden.json pins.
    source = HEADER + "def softmax_rows(x):\n    return torch.softmax(x, dim=1)\n"
    record = Record({"torch.softmax": 1})
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source, record)
    assert failed.message.en == (
        "softmax_rows must not use softmax, but yours does: torch.softmax (line 6). "
        "Write it yourself."
    )
    assert failed.message.zh.startswith("softmax_rows 不能使用 softmax，但你的代码用了：")
    assert failed.evidence == ("forbidden_call",)


def test_not_forbidden_passes_honest_code_and_other_functions():
    source = HEADER + (
        "def row_max(x):\n    return torch.softmax(x, 1).max(1)\n\n"
        "def softmax_rows(x):\n    e = (x - x.max(1, keepdim=True).values).exp()\n"
        "    return e / e.sum(1, keepdim=True)\n"
    )
    assert_not_forbidden(
        Exercise((SOFTMAX, GROUP)), "softmax_rows", source, Record({"torch.exp": 1})
    )
    assert_not_forbidden(Exercise((SOFTMAX,)), "row_max", source)  # the rule is not row_max's


def test_not_forbidden_names_the_helper():
    source = HEADER + (
        "def _normalise(x):\n    return F.softmax(x, 1)\n\n"
        "def softmax_rows(x):\n    return _normalise(x)\n"
    )
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source)
    assert "torch.nn.functional.softmax (line 6, in _normalise)" in failed.message.en


def test_not_forbidden_groups_share_one_why():
    source = HEADER + "def softmax_rows(x):\n    return x.softmin(1)\n"
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX, GROUP)), "softmax_rows", source)
    assert failed.message.en.startswith("softmax_rows must not use log_softmax, softmin, but")
    assert "x.softmin (line 6)" in failed.message.en


def test_not_forbidden_checks_the_trace_with_the_same_names():
    source = HEADER + "def softmax_rows(x):\n    return x\n"
    for traced in ("Tensor.softmax", "aten._softmax.default", "torch.nn.functional.softmax"):
        failure(
            assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source, Record({traced: 1})
        )
    assert_not_forbidden(
        Exercise((SOFTMAX,)), "softmax_rows", source, Record({"aten._log_softmax.default": 1})
    )


def test_not_forbidden_reads_aten_operators_when_the_trace_has_them():
    source = HEADER + "def softmax_rows(x):\n    return x\n"
    record = Record({"torch.exp": 1}, aten_ops={"aten._softmax.default": 1})
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source, record)
    assert "aten._softmax.default" in failed.message.en
    failure(assert_not_called, record, "softmax", "f(x)")


def test_not_forbidden_fails_on_names_reached_through_strings():
    source = HEADER + "def softmax_rows(x, n='soft' + 'max'):\n    return getattr(torch, n)(x, 1)\n"
    failed = failure(assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", source)
    assert failed.evidence == ("source_computed_names",)  # not "you called softmax"
    assert "cannot rule out" in failed.message.en and "无法排除" in failed.message.zh
    assert "getattr(...)" in failed.message.en


def test_not_forbidden_fails_closed():
    failed = failure(
        assert_not_forbidden, Exercise((SOFTMAX,)), "softmax_rows", "def softmax_rows(:\n"
    )
    assert failed.evidence == ("source_unanalysable",)


# -- assert_not_called ------------------------------------------------------------------------


def test_not_called_no_longer_raises_type_error():
    # `names` used to shadow the module's names(): every call raised TypeError.
    assert_not_called(Record({"torch.exp": 2}), ["softmax"], "softmax_rows(x)")
    assert_not_called(Record({"torch.exp": 2}), "softmax", "softmax_rows(x)")
    assert_not_called(
        Record({"torch.exp": 2}), names=["softmax"], what=Text("your softmax", "你的 softmax")
    )


@pytest.mark.parametrize(
    ("traced", "names"),
    [
        ({"Tensor.softmax": 1}, ["softmax"]),
        ({"torch.nn.functional.softmax": 1}, "softmax"),
        ({"aten._softmax.default": 3}, ["softmax"]),
        ({"Tensor.cumsum_": 1}, ["cumsum"]),
        ({"torch.nn.functional.softmax": 1}, ["F.softmax"]),
    ],
)
def test_not_called_catches_every_spelling(traced, names):
    failed = failure(assert_not_called, Record(traced), names, Text("your softmax", "你的 softmax"))
    assert failed.message.en.startswith("your softmax uses ")
    assert failed.message.zh.startswith("你的 softmax 使用了 ")
    assert failed.evidence == ("forbidden_call",)


def test_not_called_with_a_dotted_name_is_precise():
    assert_not_called(Record({"torch.softmax": 1}), ["F.softmax"], "f(x)")
    assert_not_called(Record({"torch.logsumexp": 1}), ["softmax"], "f(x)")


# -- the spec: forbidden names, groups, descriptions --------------------------------------------


def test_forbidden_spec_names_and_descriptions():
    assert SOFTMAX.name == "softmax" and GROUP.name == "log_softmax, softmin"
    assert GROUP.names == ("log_softmax", "softmin")
    en, zh = SOFTMAX.describe("en"), SOFTMAX.describe("zh")
    assert en.startswith("Not allowed in softmax_rows: softmax in any spelling")
    assert en.endswith("Write it yourself.")
    assert zh.startswith("softmax_rows 中不允许使用：softmax（任何写法")
    assert zh.endswith("请自己实现它。")
    dotted = ForbiddenSpec(("torch.optim",), (), WHY)
    assert (
        dotted.describe("en") == "Not allowed: torch.optim and everything in it. Write it yourself."
    )
    assert dotted.describe("zh").startswith("任何函数中不允许使用：torch.optim 及其中的一切")


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    catalog = Catalog(tmp_path)
    scaffold(catalog, "exercise-42", "scaling")
    return catalog


def with_forbidden(catalog: Catalog, block: str):
    path = catalog.exercises_dir / "exercise-42" / "exercise.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("devices: [cpu, cuda]\n", "devices: [cpu, cuda]\n" + block, 1))
    return catalog.resolve("42")


WHY_YAML = '    why: {en: "Multiply yourself.", zh: "请自己相乘。"}\n'


def test_spec_reads_a_name_or_a_group(catalog):
    spec = with_forbidden(
        catalog,
        "forbidden:\n  - name: mul\n" + WHY_YAML + "  - name: [torch.optim, nn.Linear]\n"
        "    functions: [scale]\n" + WHY_YAML,
    )
    assert [r.names for r in spec.forbidden] == [("mul",), ("torch.optim", "nn.Linear")]
    assert spec.forbidden[1].functions == ("scale",)


@pytest.mark.parametrize(
    ("block", "where"),
    [
        ("  - name: []\n", "forbidden[0].name"),
        ("  - name: [mul, mul]\n", "forbidden[0].name"),
        ("  - name: [mul, 3]\n", "forbidden[0].name[1]"),
        ("  - name: 'torch softmax'\n", "forbidden[0].name"),
        ("  - name: {a: b}\n", "forbidden[0].name"),
    ],
)
def test_spec_rejects_bad_names(catalog, block, where):
    with pytest.raises(SpecError) as info:
        with_forbidden(catalog, "forbidden:\n" + block + WHY_YAML)
    assert where in info.value.format()
