"""The events the suite's tests wait on (tests/events.py): each wakes a wait, none polls."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from tests.events import Ended, Output, processes, wait_until


def test_a_file_made_in_folders_made_later_wakes_the_wait(tmp_path):
    target = tmp_path / "out" / "students" / "alice" / "exercise-01.key"
    ready = threading.Event()

    def make() -> None:
        ready.wait()
        target.parent.mkdir(parents=True)
        target.with_suffix(".tmp").write_text("k")
        target.with_suffix(".tmp").rename(target)  # as write_atomic stores

    maker = threading.Thread(target=make)
    maker.start()
    seen: list[bool] = []

    def made() -> bool:
        ready.set()  # only once the watches are in place: nothing it does can be missed
        seen.append(target.exists())
        return seen[-1]

    wait_until(made, lambda: "not made", on=[tmp_path / "out"])
    maker.join()
    assert seen[-1]


def test_a_process_ending_wakes_the_wait_once_then_nothing_is_left_to_wait_on():
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    ended = Ended(proc.pid)
    assert proc.stdin is not None
    proc.stdin.close()
    wait_until(lambda: proc.poll() is not None, lambda: "still running", on=[ended])
    with pytest.raises(AssertionError, match="nothing left that could make it hold"):
        wait_until(lambda: False, lambda: "never", on=[ended])
    ended.close()


def test_a_childs_output_is_gathered_as_it_comes_and_its_end_is_seen():
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out = Output(proc.stdout)
    wait_until(lambda: "ready\n" in out.text, lambda: out.text, on=[out])
    proc.stdin.close()
    wait_until(lambda: out.closed, lambda: out.text, on=[out])
    proc.wait()
    proc.stdout.close()


def test_a_process_starting_wakes_the_wait(tmp_path):
    """Without CAP_NET_ADMIN the kernel tells no one of a process starting: the condition is
    looked at again every ``UNPRIVILEGED_RECHECK_S`` there, and the wait still ends."""
    started: list[subprocess.Popen] = []
    ready = threading.Event()

    def start() -> None:
        ready.wait()
        started.append(subprocess.Popen([sys.executable, "-c", "pass"]))

    starter = threading.Thread(target=start)
    starter.start()

    def running() -> bool:
        ready.set()
        return bool(started)

    wait_until(running, lambda: "no process started", on=[processes()])
    starter.join()
    started[0].wait()
