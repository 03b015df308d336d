"""The trust boundary's parts, one by one (the end-to-end attacks are in tests/adversarial)."""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time

import pytest
import torch

from grader.engine.records import RecordError, TestRecord, parse_line
from grader.i18n import Text
from grader.lms.spreadsheet import cell
from grader.results import Status
from grader.sandbox import codec, protocol
from grader.sandbox.messages import Answer, ErrorInfo, Hello, MessageError
from grader.sandbox.procs import reap, responsive
from tests.conftest import ROOT, run_fresh

# -- every byte from a child is data -----------------------------------------------------------


def answer_wire(**changes):
    data = Answer("abc", ok=True, duration_s=0.1, value=1).to_wire()
    data["blobs"] = []
    data.update(changes)
    return data


def test_a_well_formed_answer_round_trips():
    answer = Answer.from_wire(answer_wire())
    assert answer.ok and answer.value == 1 and answer.id == "abc"


@pytest.mark.parametrize(
    "changes",
    [
        {"ok": "yes"},  # not a boolean
        {"duration_s": float("nan")},  # NaN where a number is due
        {"duration_s": -1},
        {"id": 5},
        {"extra": 1},  # unknown field
        {"error": {"kind": "call", "type": "E", "mro": [], "message": float("nan"), "frames": []}},
    ],
)
def test_a_malformed_answer_is_refused(changes):
    with pytest.raises(MessageError):
        Answer.from_wire(answer_wire(**changes))


def test_an_answer_without_its_result_is_refused():
    data = answer_wire()
    del data["result"]
    with pytest.raises(MessageError):
        Answer.from_wire(data)


@pytest.mark.parametrize("line", ["abc", 1.5, -1, None, True])
def test_a_traceback_line_must_be_a_line_number(line):
    error = ErrorInfo("call", "ValueError", ("ValueError",), "boom").to_wire()
    error["frames"] = [{"line": line, "function": "f", "code": ""}]
    with pytest.raises(MessageError):
        ErrorInfo.from_wire(error)


def test_hello_and_error_must_agree():
    with pytest.raises(MessageError):
        Hello.from_wire(
            {
                "type": "hello",
                "ok": True,
                "functions": [],
                "duration_s": 0.0,
                "blobs": [],
                "error": ErrorInfo("import", "E", (), "x").to_wire(),
            }
        )


def test_a_header_nested_200000_deep_is_a_protocol_error():
    depth = 200_000
    data = ("[" * depth + "]" * depth).encode()
    reader = protocol.MessageReader(1 << 20)
    frame = len(data).to_bytes(4, "big") + data
    with pytest.raises(protocol.ProtocolError):
        view = memoryview(frame)
        while view:
            target = reader.buffer()
            n = min(len(target), len(view))
            target[:n] = view[:n]
            view = view[n:]
            if reader.advance(n):
                break


def test_a_huge_stride_zero_view_is_refused():
    """2^38 elements over one storage: bytes on the wire are few, the work to compare them is
    not. The decoder bounds the element count."""
    header, blobs = codec.encode(torch.zeros(1).expand(2**38))
    with pytest.raises(codec.CodecError, match="more than the grader can check"):
        codec.decode(header, blobs)
    small, small_blobs = codec.encode(torch.zeros(1).expand(1000, 1000))  # honest expand
    assert codec.decode(small, small_blobs).shape == (1000, 1000)


def test_worker_records_are_strict():
    record = TestRecord("0", "test_x", "cpu", Status.PASSED, Text("", ""))
    line = json.dumps(record.to_wire()).encode()
    assert parse_line(line) == record
    bad = record.to_wire()
    bad["duration_s"] = "soon"
    with pytest.raises(RecordError):
        parse_line(json.dumps(bad).encode())
    with pytest.raises(RecordError):
        parse_line(b"[" * 100_000 + b"]" * 100_000)
    bad = record.to_wire()
    bad["frames"] = [{"line": "abc", "function": "f", "code": ""}]
    with pytest.raises(RecordError):
        parse_line(json.dumps(bad).encode())


def test_a_records_fault_traceback_round_trips_and_is_strict():
    """The hidden tests' own traceback (for authors) crosses from the worker as a string."""
    record = TestRecord(
        "0", "test_x", "cpu", Status.ERROR, Text("", ""), fault='File "tests.py", line 3'
    )
    assert parse_line(json.dumps(record.to_wire()).encode()) == record
    bad = record.to_wire()
    bad["fault"] = ["not", "text"]
    with pytest.raises(RecordError):
        parse_line(json.dumps(bad).encode())
    del bad["fault"]
    with pytest.raises(RecordError):
        parse_line(json.dumps(bad).encode())


# -- the child sees only what it needs ---------------------------------------------------------


def test_the_folder_the_grader_was_started_from_is_not_the_runtime(tmp_path):
    """`python -m grader` puts the current folder on sys.path: it is not part of what learner
    children may read (it may hold anything of the instructor's)."""
    code = "import json; from grader.sandbox.policy import runtime_readable; print(json.dumps(runtime_readable('x')))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    readable = json.loads(run_fresh(code, env=env, cwd=tmp_path))
    assert str(tmp_path) not in readable and str(ROOT) not in readable
    assert os.path.realpath(sys.prefix) in readable


# -- every wait is bounded ---------------------------------------------------------------------


def test_a_stopped_process_is_not_responsive_and_reap_ends_it():
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child just waits to be stopped
        time.sleep(60)
        os._exit(0)
    try:
        assert responsive(pid)
        os.kill(pid, signal.SIGSTOP)
        _, status = os.waitpid(pid, os.WUNTRACED)  # the event: it has stopped
        assert os.WIFSTOPPED(status)
        assert not responsive(pid)
        # a stopped child never answers: reap gives up waiting and kills it (a hang would
        # run into the suite's per-test timeout); its status says it was killed
        status = reap(pid, timeout=0.5)
        assert status is not None and os.WIFSIGNALED(status)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


# -- CSV cells that a spreadsheet would run ----------------------------------------------------


@pytest.mark.parametrize(
    "value", ['=HYPERLINK("x")', "+1+2", "-cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "\rx"]
)
def test_formula_cells_are_quoted(value):
    assert cell(value) == "'" + value


@pytest.mark.parametrize("value", ["-1.5", "12", "Ada Lovelace", "", 3.0, "1e-3"])
def test_plain_cells_are_kept(value):
    assert cell(value) == value


def test_a_verdict_that_cannot_be_written_is_that_tests_error():
    """A NaN in what a test attached cannot be written as JSON: that one test becomes an
    error blamed on its submission, instead of the worker (and the group) stopping."""
    from grader.engine.records import to_line
    from grader.engine.worker import _unrecordable

    record = TestRecord("3", "test_x", "cpu", Status.PASSED, Text("", ""), data={"x": math.nan})
    with pytest.raises(ValueError):
        to_line(record)
    replacement = _unrecordable(record)
    assert replacement.status is Status.ERROR and replacement.submission == "3"
    assert parse_line(to_line(replacement).encode()) == replacement
