"""The fork server finds its own children (and the orphans re-parented to it) from /proc
without scanning every process of the machine, and gives the same answer where the kernel has
no per-thread ``children`` list."""

from __future__ import annotations

import builtins
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.sandbox import forkserver


@pytest.fixture
def two_children():
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
        )
        for _ in range(2)
    ]
    yield {p.pid for p in procs}
    for p in procs:
        p.kill()
        p.wait()


def test_own_children_lists_every_live_child(two_children):
    assert two_children <= forkserver._own_children()


def test_without_a_children_list_the_scan_of_proc_finds_the_same(two_children, monkeypatch):
    real_open = builtins.open

    def no_children_list(path, *args, **kwargs):
        if str(path).endswith("/children"):
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    listed = forkserver._own_children()
    monkeypatch.setattr(builtins, "open", no_children_list)
    scanned = forkserver._own_children()
    assert two_children <= scanned
    assert scanned == listed


# A child that takes each name it reads (hex, one per line) as its own process name
# (prctl PR_SET_NAME, what /proc/PID/stat shows between its parentheses) and says so.
_RENAMED = """
import ctypes, sys
libc = ctypes.CDLL(None)
for line in sys.stdin:
    libc.prctl(15, bytes.fromhex(line.strip()), 0, 0, 0)
    sys.stdout.write("named\\n")
    sys.stdout.flush()
"""


@pytest.fixture(scope="module")
def renamed_child():
    proc = subprocess.Popen(
        [sys.executable, "-c", _RENAMED], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    yield proc
    proc.kill()
    proc.wait()


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.binary(min_size=1, max_size=15).filter(lambda b: b"\0" not in b))
def test_the_scan_of_proc_reads_any_process_name(renamed_child, name, monkeypatch):
    # A learner process names itself: bytes that are not UTF-8, parentheses, spaces, newlines.
    # The fork server's scan (where the kernel has no children list) read /proc/PID/stat as
    # UTF-8 text, and a name such as b"\xff" stopped it with UnicodeDecodeError.
    renamed_child.stdin.write(name.hex().encode() + b"\n")
    renamed_child.stdin.flush()
    assert renamed_child.stdout.readline() == b"named\n"
    real_open = builtins.open

    def no_children_list(path, *args, **kwargs):
        if str(path).endswith("/children"):
            raise FileNotFoundError(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", no_children_list)
    assert renamed_child.pid in forkserver._own_children()
