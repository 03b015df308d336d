"""The fork server finds its own children (and the orphans re-parented to it) from /proc
without scanning every process of the machine, and gives the same answer where the kernel has
no per-thread ``children`` list."""

from __future__ import annotations

import builtins
import subprocess
import sys

import pytest

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
