"""Outside data at the boundary (issue 21, classes 1, 2 and 5): text that is not clean UTF-8,
structured input of an unexpected shape, and control codes meant for a terminal.

Every reader of outside or stored data is fed generated input: each either reads it or refuses
it with its own error naming the field, never anything else; every command given such input
exits 0, 1 or 2, never 3 and never with a traceback; nothing it prints controls the terminal.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import shutil
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import console, notebooks, wire
from grader.cli import main
from grader.cluster.protocol import ProtocolError as ClusterError
from grader.cluster.protocol import load_result
from grader.engine.api import GradeRequest, RequestError
from grader.engine.records import RecordError, TestRecord, from_wire, parse_line, to_line
from grader.i18n import Text
from grader.lms import cache
from grader.notebooks import CellMap, NotebookError, Run
from grader.results import Result, ResultError, Status
from grader.sandbox import codec
from grader.sandbox.messages import Answer, ErrorInfo, MessageError
from grader.serve.protocol import ProtocolError, parse_result
from tests.conftest import FIXTURES, PROBE_HOME, SUBMISSIONS, run_cli

# a shared machine: no per-example deadline; what is checked is the outcome, not the time
RELAXED = settings(
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
RESULT = json.loads((FIXTURES / "results" / "failing.json").read_text(encoding="utf-8"))

# Every C0 and C1 control, DEL, the bidirectional overrides: what a terminal obeys.
CONTROLS = [chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
CONTROLS += ["\u202e", "\u2066", "\x1b[2J", "\x1b[H", "\x1b]0;title\x07", "\x1b[8m"]
HOSTILE_TEXT = st.lists(
    st.one_of(
        st.sampled_from(CONTROLS),
        st.characters(codec=None),
        st.characters(categories=["Cs"]),  # lone surrogates: hypothesis leaves them out else
    ),
    max_size=30,
).map("".join)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _controls_in(text: str) -> list[str]:
    """What in ``text`` a terminal would obey: control codes but newline and tab, lone
    surrogates (undecodable bytes), bidirectional overrides and isolates."""
    bidi = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
    return [
        c
        for c in text
        if c not in "\n\t" and (unicodedata.category(c) in ("Cc", "Cs") or c in bidi)
    ]


def _mutations(data: dict) -> st.SearchStrategy[dict]:
    """``data`` with one field, at any depth, replaced by generated JSON (or removed), or one
    unknown field added."""
    paths: list[tuple] = []

    def walk(value: object, path: tuple) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value[:3]):
                walk(v, (*path, i))

    walk(data, ())

    def mutate(path: tuple, value: object, how: str) -> dict:
        changed = copy.deepcopy(data)
        if not path:
            return value if how == "replace" else changed  # type: ignore[return-value]
        parent = changed
        for step in path[:-1]:
            parent = parent[step]
        if how == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == "add" and isinstance(parent, dict):
            parent["surprise"] = value
        else:
            parent[path[-1]] = value
        return changed

    def at(path: tuple) -> object:
        value: object = data
        for step in path:
            value = value[step]  # type: ignore[index]
        return value

    def twins(value: object) -> list[object]:
        """Values equal to ``value`` in Python but of another JSON type (4.0 for 4, true for
        1, "4" for 4): a reader that compares with == lets them through to code that checks
        the type (nbformat's own validator asserted, and crashed the grader)."""
        if isinstance(value, bool):
            return [int(value), float(value)]
        if isinstance(value, int):
            return [float(value), str(value)] + ([bool(value)] if value in (0, 1) else [])
        if isinstance(value, float) and value.is_integer():
            return [int(value)]
        return []

    def replacement(path: tuple) -> st.SearchStrategy[object]:
        found = twins(at(path))
        return (st.sampled_from(found) | JSON) if found else JSON

    return st.sampled_from(paths).flatmap(
        lambda path: st.builds(
            mutate, st.just(path), replacement(path), st.sampled_from(["replace", "drop", "add"])
        )
    )


# -- class 1: text that is not clean UTF-8 ------------------------------------------------


def test_a_lone_surrogate_from_learner_code_is_the_learners(probe_service, tmp_path):
    """Learner code raises with a lone surrogate in its message: that test fails (the
    learner's fault), the others are graded, and the worker does not die for it."""
    path = tmp_path / "exercise-90.py"
    path.write_text(
        "def double(x):\n    raise ValueError('bad \\ud800 text')\n\n"
        "def triple(x):\n    return 3 * x\n",
        encoding="utf-8",
    )
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    by_name = {t.name: t for t in result.tests}
    assert by_name["test_triple"].status is Status.PASSED
    assert by_name["test_double_values"].status is Status.FAILED
    assert "bad \ufffd text" in by_name["test_double_values"].message
    assert not any("grader itself" in note for note in result.notes)
    result.to_json().encode("utf-8")


@RELAXED
@given(HOSTILE_TEXT)
def test_a_record_of_any_text_is_written_and_read_back(text: str) -> None:
    """A worker's record always encodes (it is written to a pipe as UTF-8) and reads back."""
    record = TestRecord("0", "test_x", "cpu", Status.FAILED, Text(text, text), output=text)
    line = to_line(record)
    back = parse_line(line.encode("utf-8"))
    assert isinstance(back, TestRecord) and back.output == wire.shown(text)


@RELAXED
@given(HOSTILE_TEXT)
def test_a_request_names_its_file_in_text_that_always_encodes(name: str) -> None:
    request = GradeRequest("exercise-90", b"x = 1\n", name)
    request.filename.encode("utf-8")
    assert GradeRequest.from_wire(json.loads(json.dumps(request.to_wire()))) == request


# -- class 2: structured input of an unexpected shape ----------------------------------------


@pytest.mark.parametrize("stored", [b"[]", b"{}", b"null", b'"x"', b"\xff", b"[" * 5000])
def test_a_stored_result_that_is_not_one_is_graded_again_and_said_so(tmp_path, stored):
    path = tmp_path / "students" / "ada" / "exercise-90.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(stored)
    path.with_suffix(".key").write_text("k")
    problems: list[str] = []
    assert cache.load(path, "k", problems) is None
    assert len(problems) == 1 and str(path) in problems[0] and "graded again" in problems[0]


@pytest.mark.parametrize("kind", ["fifo", "folder", "link to a fifo"])
@pytest.mark.parametrize("which", [".key", ".json"])
def test_a_stored_file_that_is_no_regular_file_is_graded_again_without_waiting(
    tmp_path, kind, which
):
    """A FIFO where the batch cache keeps a key or a result (a damaged or tampered output
    folder): reading it waited for a writer for ever, and the whole class's batch hung. It is
    no stored result: graded again, at once."""
    path = tmp_path / "students" / "ada" / "exercise-90.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{}")
    path.with_suffix(".key").write_text("k")
    odd = path.with_suffix(which)
    odd.unlink()
    if kind == "folder":
        odd.mkdir()
    elif kind == "fifo":
        os.mkfifo(odd)
    else:
        os.mkfifo(tmp_path / "fifo")
        odd.symlink_to(tmp_path / "fifo")
    assert cache.load(path, "k", []) is None


@RELAXED
@given(_mutations(RESULT))
def test_stored_results_are_read_strictly(data: dict) -> None:
    """A result with any one field changed, dropped or added either reads as a Result (and
    round-trips) or is a ResultError naming the file; never another exception."""
    text = json.dumps(data, allow_nan=True)
    try:
        result = Result.from_json(text, source="students/ada/exercise-90.json")
    except ResultError as exc:
        assert "students/ada/exercise-90.json" in str(exc)
        return
    assert Result.from_json(result.to_json()) == result


@RELAXED
@given(_mutations(RESULT))
def test_results_from_a_worker_or_a_server_are_read_strictly(data: dict) -> None:
    for parse, error in ((parse_result, ProtocolError), (load_result, ClusterError)):
        try:
            parse(data)
        except error:
            pass


RECORD = TestRecord(
    "0",
    "test_x",
    "cpu",
    Status.FAILED,
    Text("en", "zh"),
    evidence=("a",),
    error={"type": "ValueError", "message": "m"},
    data={"k": [1, 2.5]},
).to_wire()


@RELAXED
@given(_mutations(RECORD))
def test_records_from_a_worker_are_read_strictly(data: dict) -> None:
    try:
        record = from_wire(data)
    except RecordError:
        return
    assert from_wire(json.loads(to_line(record))) == record


ANSWER = Answer(
    "ab12", ok=False, error=ErrorInfo("call", "ValueError", ("ValueError",), "m")
).to_wire() | {"blobs": []}


@RELAXED
@given(_mutations(ANSWER))
def test_answers_from_a_learner_child_are_read_strictly(data: dict) -> None:
    try:
        Answer.from_wire(data)
    except MessageError:
        pass


def _answer_tree() -> tuple[dict, list]:
    import numpy as np
    import torch

    value = (
        torch.arange(6.0).reshape(2, 3)[:, 1:],
        np.float32(2.5),
        {"k": torch.ones(2, dtype=torch.int64)},
        torch.empty(2, device="meta"),
        torch.zeros(3, requires_grad=True),
    )
    header, blobs = codec.encode(value)
    return json.loads(json.dumps(header)), [bytearray(b) for b in blobs]


TREE, TREE_BLOBS = _answer_tree()


@settings(RELAXED, max_examples=300)
@given(_mutations(TREE))
def test_an_answer_of_any_shape_is_read_or_unreadable(header: dict) -> None:
    """A learner child's answer (a codec tree: tensors as metadata and bytes) changed in any
    one place reads as data or is a CodecError, which the test reports as the learner's
    unreadable answer; nothing else escapes to blame the grader."""
    if not isinstance(header, dict):
        return  # the proxy builds the header itself: only what is in it comes from the child
    try:
        codec.decode(header, TREE_BLOBS, keep_info=True)
    except codec.CodecError:
        pass


CELLS = CellMap((Run(2, 3, 1, 4), Run(7, 5, 1, 2)), ((3, 7),)).to_dict()


@RELAXED
@given(_mutations(CELLS))
def test_cell_maps_are_read_strictly(data: dict) -> None:
    try:
        cells = CellMap.from_dict(data)
    except wire.WireError as exc:
        assert isinstance(exc, ValueError)
        return
    assert CellMap.from_dict(cells.to_dict()) == cells


@RELAXED
@given(_mutations(GradeRequest("exercise-90", b"x = 1\n", "a.py", cells=CellMap()).to_wire()))
def test_grading_requests_are_read_strictly(data: dict) -> None:
    try:
        GradeRequest.from_wire(data)
    except RequestError:
        pass


def _notebook(metadata: object = None, cells: object = None) -> dict:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {} if metadata is None else metadata,
        "cells": [
            {
                "cell_type": "code",
                "source": "def double(x):\n    return 2 * x\n",
                "metadata": {},
                "outputs": [],
                "execution_count": 1,
            }
        ]
        if cells is None
        else cells,
    }


@pytest.mark.parametrize("depth", [100, 500, 5000])
def test_notebook_metadata_nested_hundreds_deep_is_the_learners_error(depth):
    text = json.dumps(_notebook({"deep": "HERE"}))
    nested = '{"a": ' * depth + "{}" + "}" * depth
    data = text.replace('"HERE"', nested).encode()
    with pytest.raises(NotebookError, match="nested more than"):
        notebooks.extract(data)


@RELAXED
@given(
    _mutations(_notebook({"kernelspec": {"language": "python", "name": "p", "display_name": "P"}}))
)
def test_notebooks_of_any_shape_are_read_or_refused(data: dict) -> None:
    try:
        notebooks.extract(json.dumps(data, allow_nan=True).encode())
    except NotebookError as exc:
        str(exc).encode("utf-8")
        # said in the learner's words: never a cell or the notebook as a Python dict or list
        assert "{'" not in str(exc) and "['" not in str(exc), str(exc)
        assert len(str(exc)) < 400, str(exc)


def test_a_notebook_format_of_a_thousand_digits_is_named_short():
    data = json.dumps({**_notebook(), "nbformat": int("9" * 1000)}).encode()
    with pytest.raises(NotebookError, match=r"nbformat 9{40}\.\.\.;") as raised:
        notebooks.extract(data)
    assert len(str(raised.value)) < 400


@pytest.mark.parametrize("digits", [4301, 5000, 10000])
def test_a_notebook_number_past_what_python_reads_is_named_in_the_graders_words(digits):
    """A number longer than Python turns into text: said as such, not in Python's words
    (which tell the reader to raise the interpreter's limit)."""
    data = json.dumps(_notebook()).replace('"execution_count": 1', '"execution_count": 7')
    data = data.replace('"execution_count": 7', '"execution_count": ' + "9" * digits, 1)
    with pytest.raises(NotebookError, match=rf"a {digits}-digit number") as raised:
        notebooks.extract(data.encode())
    assert "set_int_max_str_digits" not in str(raised.value)


@pytest.mark.parametrize("count", [0, 10**9, int("9" * 900)], ids=["0", "1e9", "900-digits"])
def test_a_run_count_jupyter_never_writes_is_not_shown(count):
    cells = [{**_notebook()["cells"][0], "execution_count": count}]
    extracted = notebooks.extract(json.dumps(_notebook(cells=cells)).encode())
    assert extracted.cells.execution_counts == ()


@pytest.mark.parametrize(
    ("cell", "says"),
    [
        ({"cell_type": "weird"}, 'cell 2 has cell_type "weird"; a cell is code, markdown or raw'),
        ({"cell_type": None}, "cell 2 has cell_type null"),
        ("print(1)", 'cell 2 is "print(1)", not a cell'),
        ({"cell_type": "code", "execution_count": "1"}, "cell 2, execution_count: "),
    ],
)
def test_a_damaged_cell_is_named_by_its_number(cell, says):
    good = _notebook()["cells"][0]
    damaged = {**good, **cell} if isinstance(cell, dict) else cell
    data = json.dumps(_notebook(cells=[good, damaged])).encode()
    with pytest.raises(NotebookError, match=re.escape(says)):
        notebooks.extract(data)


# -- class 5: terminal injection ---------------------------------------------------------------


@RELAXED
@given(HOSTILE_TEXT, st.booleans())
def test_nothing_written_to_the_terminal_controls_it(text: str, colour: bool) -> None:
    out = io.StringIO()
    stream = console.InertStream(out, colour=colour)
    print(text, file=stream)
    assert not _controls_in(out.getvalue()), ascii(out.getvalue())


@RELAXED
@given(HOSTILE_TEXT, HOSTILE_TEXT)
def test_a_file_name_or_an_output_path_stays_on_its_line_of_the_summary(name, path) -> None:
    """A newline in a file name ("new\nAll tests passed.py") printed a line of its own under
    "submission:"; the name and the report and JSON paths stay on their lines."""
    from dataclasses import replace

    from grader.render.terminal import render

    result = replace(Result.from_json(json.dumps(RESULT)), submission=name)
    plain = render(result, report_path=f"r{path}", json_path=f"j{path}")
    lines = plain.splitlines()
    heads = ("submission:", "Report:", "JSON:")
    for head in heads:
        found = [line for line in lines if line.lstrip().startswith(head)]
        assert len(found) == 1, (head, lines)
    assert len(lines) == len(render(replace(result, submission="x"), report_path="r",
                                    json_path="j").splitlines())  # fmt: skip


def test_the_graders_own_colours_and_controls_still_pass():
    out = io.StringIO()
    stream = console.InertStream(out, colour=True)
    stream.write("\x1b[1;32m✓ passed\x1b[0m \x1b[8mhidden\x1b[2J")
    console.control(stream, "\r")
    assert out.getvalue() == "\x1b[1;32m✓ passed\x1b[0m \\x1b[8mhidden\\x1b[2J\r"


@RELAXED
@given(parts=st.lists(st.sampled_from(CONTROLS) | st.binary(min_size=1, max_size=3), min_size=1))
def test_a_file_path_of_any_bytes_is_a_usage_error_in_inert_text(parts, capsys) -> None:
    """``grade 90 --file PATH`` with a path of control codes and bytes that are not UTF-8:
    one ``Error:`` line, exit 2, nothing that controls the terminal, no traceback."""
    raw = b"".join(p if isinstance(p, bytes) else p.encode() for p in parts).replace(b"\0", b"")
    name = os.fsdecode(b"/nonexistent-" + raw.replace(b"/", b"_") + b".py")
    old = os.environ.get("GRADER_HOME")
    os.environ["GRADER_HOME"] = str(PROBE_HOME)
    try:
        code = main(["90", "--file", name])
    finally:
        if old is None:
            os.environ.pop("GRADER_HOME")
        else:
            os.environ["GRADER_HOME"] = old
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith("Error: ") and "Traceback" not in captured.err
    assert not _controls_in(captured.out + captured.err), ascii(captured.err)


@pytest.mark.slow
def test_a_class_with_hostile_names_and_stored_files_is_graded(tmp_path):
    """One batch: a folder named in Latin-1 bytes, one whose name clears the screen and forges
    a line, one whose file name has escape codes. Everyone is graded (the gradebook is
    written), nothing printed controls the terminal and no file written for people holds a
    control code (an ESC from a file name reached gradebook.csv raw); then a stored result that holds ``[]`` is
    graded again, said so, and the rerun still exits 0 or 1."""
    root = os.fsencode(tmp_path / "class")
    os.mkdir(root)
    correct = os.fsencode(SUBMISSIONS / "correct.py")
    for name in (b"ada", "Jos\xe9".encode("latin-1"), b"\x1b[2J\x1b[HAll tests passed\x1b[8m"):
        os.mkdir(os.path.join(root, name))
        shutil.copyfile(correct, os.path.join(root, name, b"exercise-90.py"))
    os.mkdir(os.path.join(root, b"eve"))
    forged = b"exercise-90\x1b]0;x\x07\nNothing needs a look.py"
    shutil.copyfile(correct, os.path.join(root, b"eve", forged))
    out = tmp_path / "out"
    args = ("batch", os.fsdecode(root), "--out", str(out), "--jobs", "2")
    proc = run_cli(*args, home=PROBE_HOME)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not _controls_in(proc.stdout + proc.stderr), ascii(proc.stdout + proc.stderr)
    assert "\\nNothing needs a look" in proc.stdout  # eve's file, named on one line
    assert not [line for line in proc.stdout.splitlines() if line.startswith("Nothing")]
    gradebook = (out / "gradebook.csv").read_text(encoding="utf-8")
    # the Latin-1 byte shown as \xe9 (under U+FFFD, Jos\xe9 and Jos\xe8 were one student)
    assert "Jos\\xe9" in gradebook and "\ufffd" not in gradebook
    # every file written for people holds the names inert, as the terminal showed them
    for written in (out / "gradebook.csv", out / "gradebook.json", out / "index.html"):
        text = written.read_text(encoding="utf-8")
        assert not _controls_in(text), (written.name, ascii(text))
    for page in [*out.glob("feedback/*.html"), *out.glob("students/*/results.json")]:
        assert not _controls_in(page.read_text(encoding="utf-8")), page
    stored = next(out.glob("students/ada/exercise-90.json"))
    stored.write_text("[]")
    again = run_cli(*args, home=PROBE_HOME)
    assert again.returncode in (0, 1), again.stderr
    assert "not a stored result, graded again" in again.stderr
    assert Result.from_json(stored.read_text(encoding="utf-8")).score == 4


STATE = {
    "format_version": 1,
    "exercises": {
        "exercise-90": {
            "status": "failed",
            "score": 1,
            "max_score": 4,
            "graded_at": "2026-01-01T00:00:00",
            "hints_shown": 1,
        }
    },
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ws") / "ws"
    proc = run_cli("init", str(folder), home=PROBE_HOME)
    assert proc.returncode == 0, proc.stderr
    return folder


@RELAXED
@given(state=_mutations(STATE))
def test_a_workspace_state_of_any_shape_never_crashes_a_command(
    state, workspace, monkeypatch, capsys
) -> None:
    """The learner's ``.grade/state.json`` is stored data: whatever it holds, ``grade hint``
    and ``grade list`` answer (exit 0), reading what is well formed and forgetting the rest."""
    (workspace / ".grade" / "state.json").write_text(json.dumps(state, allow_nan=True))
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("GRADER_HOME", str(PROBE_HOME))
    for command in (["hint", "90"], ["list"]):
        assert main(command) == 0, capsys.readouterr().err
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nest"),
        ("a: !!python/object/apply:os.system [ls]\n", "explicit tag"),
        ("a: 1\na: 2\n", "duplicate key"),
        ("a: " + "x" * (5 << 20) + "\n", "larger than"),
    ],
)
def test_an_instructors_yaml_of_any_shape_is_a_spec_error_naming_the_file(tmp_path, text, problem):
    """An instructor's file (a spec, the diagnoses, an assignment) is read by the same kit:
    a problem is a SpecError (exit 2, one ``Error:`` line) naming the file, never a crash."""
    from grader.errors import SpecError
    from grader.yamlfields import read_yaml

    path = tmp_path / "exercise.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=problem) as caught:
        read_yaml(path)
    assert str(path) in caught.value.format().splitlines()[0]
