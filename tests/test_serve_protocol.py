"""The warm server's wire format: every message round-trips, and every way a message can be
malformed is a ProtocolError that says what was wrong (never a traceback, never a guess)."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import socket
import stat
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.engine.api import GradeRequest
from grader.notebooks import CellMap, Run
from grader.results import Result
from grader.serve import protocol
from grader.serve.runtime import (
    RuntimeFolderError,
    check_private,
    idle_timeout,
    peer_uid,
    same_user,
)
from tests.conftest import FIXTURES

REQUEST = GradeRequest("exercise-90", b"def double(x):\n    return 2 * x\n", "my file.py")
RESULT = Result.from_dict(
    json.loads((FIXTURES / "results" / "failing.json").read_text(encoding="utf-8"))
)


def frame(data: object) -> bytes:
    payload = json.dumps(data).encode()
    return struct.pack("!I", len(payload)) + payload


def envelope(kind: str, body: object, version: object = protocol.PROTOCOL) -> dict:
    return {"protocol": version, "kind": kind, "body": body}


@pytest.mark.parametrize(
    "message",
    [
        protocol.GradeCall(REQUEST),
        # a notebook's request carries its cell map: the engine's messages name cells
        protocol.GradeCall(
            dataclasses.replace(
                REQUEST, cells=CellMap((Run(2, 3, 1, 4),), ((3, 7),)), filename="nb.ipynb"
            )
        ),
        protocol.StatusCall(),
        protocol.StopCall(),
        protocol.Accepted(),
        protocol.ResultReply(RESULT),
        protocol.ErrorReply(protocol.USAGE, "no exercise 'x'", "Run `grade list`."),
        protocol.StatusReply(
            1, "0.1.0", "/course", 1.5, 900.0, 3.25, 2, "process", 200_000, 204_096
        ),
        protocol.Stopping(),
    ],
)
def test_every_message_round_trips(message):
    expected = protocol.REQUESTS if isinstance(message, protocol.REQUESTS) else protocol.REPLIES
    data = protocol.encode(message)
    assert protocol.read_stream(io.BytesIO(data), expected) == message


def test_the_request_keeps_bytes_and_the_name_as_given():
    data = protocol.encode(protocol.GradeCall(REQUEST))
    got = protocol.read_stream(io.BytesIO(data), protocol.REQUESTS)
    assert got.request.source == REQUEST.source and got.request.filename == "my file.py"


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "an object with protocol, kind and body"),
        (json.dumps({"kind": "status", "body": {}}).encode(), "protocol, kind and body"),
        (json.dumps(envelope("status", {}, 99)).encode(), "speaks protocol 99"),
        (json.dumps(envelope("status", {}, True)).encode(), "speaks protocol True"),
        (json.dumps(envelope("launch", {})).encode(), "unexpected message kind 'launch'"),
        (json.dumps(envelope("status", [])).encode(), "body must be an object"),
        (json.dumps(envelope("status", {"x": 1})).encode(), "field 'body.x': unknown field"),
        (json.dumps(envelope("grade", {})).encode(), "field 'body.request': missing"),
        (
            json.dumps(envelope("grade", {"request": "x"})).encode(),
            "field 'request': expected a mapping, got a string",
        ),
        (
            json.dumps(
                envelope("grade", {"request": {**REQUEST.to_wire(), "path": "/etc"}})
            ).encode(),
            "a malformed grading request: field 'request.path': unknown field",
        ),
        (
            json.dumps(
                envelope("grade", {"request": {**REQUEST.to_wire(), "source": "%%"}})
            ).encode(),
            "field 'request.source': source must be base64",
        ),
        (
            json.dumps(
                envelope("grade", {"request": {**REQUEST.to_wire(), "cells": {"runs": []}}})
            ).encode(),
            "field 'request.cells.map_version': missing",
        ),
        (
            json.dumps(
                envelope(
                    "grade",
                    {
                        "request": {
                            **REQUEST.to_wire(),
                            "cells": {"map_version": 1, "runs": [], "execution_counts": 5},
                        }
                    },
                )
            ).encode(),
            "field 'request.cells.execution_counts': expected a list",
        ),
    ],
)
def test_malformed_requests_say_what_is_wrong(payload, says):
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.decode(payload, protocol.REQUESTS)
    assert says in str(caught.value)


def test_a_reply_is_not_accepted_as_a_request():
    data = protocol.encode(protocol.Stopping())
    with pytest.raises(protocol.ProtocolError, match="unexpected message kind 'stopping'"):
        protocol.read_stream(io.BytesIO(data), protocol.REQUESTS)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"result": {**RESULT.to_dict(), "verdict": "A+"}}, "field 'verdict': unknown field"),
        (
            {"result": {k: v for k, v in RESULT.to_dict().items() if k != "tests"}},
            "field 'tests': missing",
        ),
        ({"result": {**RESULT.to_dict(), "schema_version": 7}}, "schema_version 7"),
        ({"result": {**RESULT.to_dict(), "status": "great"}}, "malformed result"),
        ({"result": {**RESULT.to_dict(), "score": "lots"}}, "malformed result"),
        ({"result": {**RESULT.to_dict(), "tests": [{"name": 1}]}}, "malformed result"),
    ],
)
def test_malformed_results_are_refused(body, says):
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.decode(json.dumps(envelope("result", body)).encode(), protocol.REPLIES)
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"error": "oops", "message": "m", "hint": ""}, "unknown error kind 'oops'"),
        (
            {"error": "usage", "message": 3, "hint": ""},
            "field 'body.message': expected a string, got a whole number",
        ),
        (
            {
                "pid": True,
                "version": "",
                "root": "",
                "started": 0,
                "idle_timeout_s": 1,
                "idle_s": 0,
                "served": 0,
                "isolation": "",
                "learner_uids_start": 0,
                "learner_uids_stop": 0,
            },
            "field 'body.pid': expected a whole number, got a boolean",
        ),
    ],
)
def test_malformed_replies_are_refused(body, says):
    kind = "error" if "error" in body else "status"
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.decode(json.dumps(envelope(kind, body)).encode(), protocol.REPLIES)
    assert says in str(caught.value)


def test_frames_are_checked_before_anything_is_read():
    too_long = struct.pack("!I", protocol.MAX_MESSAGE + 1)
    with pytest.raises(protocol.ProtocolError, match="over"):
        protocol.read_stream(io.BytesIO(too_long), protocol.REQUESTS)
    with pytest.raises(protocol.Closed):
        protocol.read_stream(io.BytesIO(b"\0\0"), protocol.REQUESTS)
    with pytest.raises(protocol.Closed, match="middle"):
        protocol.read_stream(io.BytesIO(struct.pack("!I", 10) + b"{}"), protocol.REQUESTS)


def test_a_socket_that_says_nothing_times_out_and_one_that_closes_is_closed():
    mine, theirs = socket.socketpair()
    with mine, theirs:
        with pytest.raises(protocol.ProtocolError, match="no answer in time"):
            protocol.receive(mine, protocol.REPLIES, deadline=0.0)
        theirs.sendall(frame(envelope("accepted", {}))[:5])
        theirs.close()
        with pytest.raises(protocol.Closed, match="middle of a message"):
            protocol.receive(mine, protocol.REPLIES, deadline=None)


def test_peer_credentials_come_from_the_kernel(monkeypatch):
    mine, theirs = socket.socketpair()
    with mine, theirs:
        assert peer_uid(mine) == os.getuid()
        assert same_user(mine)
        # seen from a server run by someone else, the same peer is another user
        real = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real + 1)
        assert not same_user(mine)


def test_the_runtime_folder_must_be_private(tmp_path):
    folder = tmp_path / "rt"
    folder.mkdir(mode=0o700)
    check_private(folder)
    folder.chmod(0o755)
    with pytest.raises(RuntimeFolderError, match=r"open to other users \(mode 755\)"):
        check_private(folder)
    link = tmp_path / "link"
    link.symlink_to(folder)
    with pytest.raises(RuntimeFolderError, match="not a folder"):
        check_private(link)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_a_request_carries_only_what_decides_the_result():
    # no label that nothing reads: a request with one more field is refused, not ignored
    wire = REQUEST.to_wire()
    assert set(wire) == {"exercise", "source", "filename", "devices", "seed", "lang", "cells"}
    assert GradeRequest.from_wire(wire) == REQUEST
    with pytest.raises(ValueError, match=r"tag.*unknown field"):
        GradeRequest.from_wire({**wire, "tag": "mine"})


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.sampled_from(
            ["inf", "Infinity", "-inf", "nan", "1e400", "1e308", "0", "-5", "x", "1_0"]
        ),
        st.integers(min_value=1, max_value=10**30).map(str),
    )
)
def test_any_idle_time_from_the_environment_can_be_told_in_the_status(value, monkeypatch):
    """``GRADE_SERVER_IDLE=inf`` parsed as a float: the server ran, its status reply could not
    be written (JSON has no infinity), and `grade server status` said no server was running.
    Whatever the variable holds, the idle time read is one the status reply carries."""
    monkeypatch.setenv("GRADE_SERVER_IDLE", value)
    seconds = idle_timeout()
    assert math.isfinite(seconds) and seconds > 0
    reply = protocol.StatusReply(1, "0.1.0", "/course", 1.5, seconds, 3.25, 2, "process", 0, 0)
    assert protocol.read_stream(io.BytesIO(protocol.encode(reply)), protocol.REPLIES) == reply
