"""The fork server folds its memory into huge pages (cheaper forks): only the private,
anonymous, writable mappings, whole huge pages of them, with their contents unchanged, and
only once it has forked a few children."""

from __future__ import annotations

import mmap
import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox import hugepages
from grader.sandbox.hugepages import HugePageFolder, anonymous_ranges

HUGE = 2 << 20

MAPS = """\
55d0c0000000-55d0c0021000 r--p 00000000 fd:01 123 /usr/bin/python3.11
55d0c2000000-55d0c2a00000 rw-p 00000000 00:00 0                  [heap]
7f0000000000-7f0000a00000 rw-p 00000000 00:00 0
7f0000a00000-7f0000b00000 rw-s 00000000 00:01 77                 /dev/zero (deleted)
7f0001000000-7f0001400000 rw-p 00010000 fd:01 456                /venv/lib/libtorch_cpu.so
7f0002000000-7f0002400000 r--p 00000000 00:00 0
7f0003000000-7f0003600000 rw-p 00000000 00:00 0                  [anon: glibc: malloc arena]
7f0004100000-7f0004200000 rw-p 00000000 00:00 0
7ffd00000000-7ffd00600000 rw-p 00000000 00:00 0                  [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0          [vsyscall]
"""


def test_only_private_writable_anonymous_memory_is_folded():
    assert anonymous_ranges(MAPS, HUGE) == [
        (0x55D0C2000000, 0x55D0C2A00000),  # the heap
        (0x7F0000000000, 0x7F0000A00000),  # an anonymous mapping
        (0x7F0003000000, 0x7F0003600000),  # a named one (glibc's arena)
        # not: the file's pages, shared memory, a read-only mapping, the stack, the kernel's
        # own, nor a mapping smaller than a huge page (7f0004100000-7f0004200000)
    ]


_PERMS = st.sampled_from(["rw-p", "rw-s", "r--p", "r-xp", "---p", "rwxp"])
_NAMES = st.sampled_from(["", "[heap]", "[stack]", "[vdso]", "[anon: x]", "/lib/x.so", "/a b"])


@st.composite
def mapping_lines(draw):
    low = draw(st.integers(0, 1 << 40)) * 4096
    high = low + draw(st.integers(1, 4096)) * 4096
    perms, name = draw(_PERMS), draw(_NAMES)
    return low, high, perms, name, f"{low:x}-{high:x} {perms} 00000000 00:00 0 {name}".rstrip()


@given(st.lists(mapping_lines(), max_size=20), st.sampled_from([1 << 21, 1 << 16, 1 << 30]))
def test_every_range_is_whole_huge_pages_inside_one_eligible_mapping(lines, huge):
    maps = "\n".join(line for *_, line in lines)
    eligible = [
        (low, high)
        for low, high, perms, name, _ in lines
        if perms.startswith("rw") and perms[3] == "p" and name in ("", "[heap]", "[anon: x]")
    ]
    found = anonymous_ranges(maps, huge)
    for start, end in found:
        assert start % huge == 0 and end % huge == 0 and end > start
        assert any(low <= start and end <= high for low, high in eligible)
    # and each eligible mapping gives all its whole huge pages, in order
    expected = []
    for low, high in eligible:
        start, end = -(-low // huge) * huge, high // huge * huge
        if end > start:
            expected.append((start, end))
    assert found == expected


def test_malformed_lines_are_skipped():
    assert anonymous_ranges("garbage\nzz-yy rw-p 0 0 0\n\n", HUGE) == []


def test_nothing_is_folded_before_enough_children_were_forked():
    folder = HugePageFolder(start_after=3)
    folder.forked()
    folder.forked()
    assert not folder.wanted()
    folder.forked()
    assert folder.wanted()


def test_a_mapping_that_cannot_be_folded_does_not_stop_the_rest(monkeypatch):
    """EINVAL names one mapping (a library marked it no-huge-page): the next is tried; a
    sandbox that refuses the call itself (EPERM) stops the folding."""
    import errno

    folder = HugePageFolder(start_after=0)
    folder._todo = [(5 * HUGE, 7 * HUGE), (HUGE, 3 * HUGE)]  # popped from the end
    tried = []

    def fold(start):
        tried.append(start)
        if start < 3 * HUGE:
            return errno.EINVAL
        folder.folded += HUGE
        return 0

    monkeypatch.setattr(folder, "_fold", fold)
    while folder.wanted():
        folder.step()
    assert tried == [HUGE, 5 * HUGE, 6 * HUGE] and folder.folded == 2 * HUGE
    assert not folder.refused
    folder = HugePageFolder(start_after=0)
    folder._todo = [(5 * HUGE, 7 * HUGE), (HUGE, 3 * HUGE)]
    monkeypatch.setattr(folder, "_fold", lambda start: errno.EPERM)
    folder.step()
    assert not folder.wanted() and folder.refused


def test_turned_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("GRADER_HUGEPAGES", "0")
    folder = HugePageFolder.for_server()
    for _ in range(100):
        folder.forked()
    assert not folder.wanted()


def _anon_huge_kib(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


def _kernel_folds() -> bool:
    """Whether this kernel folds a fresh private mapping (in a forked process)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            area = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            area.write(b"x" * (8 << 20))
            folder = HugePageFolder(start_after=0)
            while folder.wanted() and not folder.folded:
                folder.step()
            os.write(write_fd, b"1" if folder.folded else b"0")
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as handle:
        answer = handle.read()
    os.waitpid(pid, 0)
    return answer == b"1"


@pytest.mark.skipif(sys.platform != "linux", reason="huge pages are folded on Linux only")
def test_folded_memory_keeps_its_contents():
    """In a forked process (the test's own memory stays as it is): 16 MiB of private memory,
    each page holding its own number, is folded step by step; every byte reads the same."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            size = 16 << 20
            area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            for page in range(size // 4096):
                area[page * 4096 : page * 4096 + 8] = page.to_bytes(8, "little")
            before = _anon_huge_kib()
            folder = HugePageFolder(start_after=0)
            while folder.wanted():
                folder.step()
            intact = all(
                int.from_bytes(area[p * 4096 : p * 4096 + 8], "little") == p
                for p in range(size // 4096)
            )
            report = f"{int(folder.refused)} {folder.folded} {before} {_anon_huge_kib()} {intact}"
            os.write(write_fd, report.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd) as handle:
        refused, folded, before, after, intact = handle.read().split()
    assert os.waitpid(pid, 0)[1] == 0
    assert intact == "True"
    if refused == "1":
        pytest.skip("this kernel does not fold memory into huge pages (MADV_COLLAPSE)")
    assert int(folded) >= 8 << 20  # at least half of the 16 MiB area's whole huge pages
    assert int(after) - int(before) >= 8 << 10


@pytest.mark.skipif(sys.platform != "linux", reason="huge pages are folded on Linux only")
def test_the_fork_server_folds_its_memory_once_it_has_forked_a_few_children(tmp_path):
    """After START_AFTER children, the fork server folds while idle: its anonymous huge
    pages grow (waited for as an event: each answered request is a turn of its loop)."""
    from grader.sandbox.forkserver import ForkServer, ForkServerClient
    from grader.sandbox.policy import ChildLimits

    if not _kernel_folds():
        pytest.skip("this kernel does not fold memory into huge pages (MADV_COLLAPSE)")
    learner = tmp_path / "exercise-99.py"
    learner.write_text("x = 1\n")
    server = ForkServer(requested="process")
    server.start()
    try:
        client = ForkServerClient(server.connect(), server.pid)
        assert _anon_huge_kib(server.pid) == 0 or _thp_always()
        for _ in range(hugepages.START_AFTER):
            pid, sock, out_fd = client.spawn(str(learner), learner.name, "cpu", ChildLimits())
            sock.close()
            os.close(out_fd)
            client.kill(pid)
            client.wait(pid, timeout=30)
        # No wall-clock bound of its own: a server that never folds hangs here, and the
        # suite's per-test timeout (pyproject.toml) fails it.
        while _anon_huge_kib(server.pid) == 0:
            client.wait(pid, timeout=30)  # a request: the server has gone round its loop
    finally:
        server.stop()


def _thp_always() -> bool:
    """Whether the kernel folds every process's memory by itself (then nothing is proven by
    a fork server that has folded before its time)."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as handle:
            return "[always]" in handle.read()
    except OSError:
        return False
