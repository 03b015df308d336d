"""Folding the fork server's memory into huge pages, a little at a time, while it is idle.

Every learner child is a fork of the fork server (two, in the namespaces tier: the keeper and
the child), and a fork's cost is its page tables: after ``import torch`` the fork server holds
about 150 MiB of anonymous memory, 38,000 small pages whose entries every fork copies and every
exit frees again, about 7 ms of kernel time a fork (PERFORMANCE.md). Folded into 2 MiB pages
(``madvise(MADV_COLLAPSE)``, Linux 6.1 and later), the same memory is 75 entries: a fork and its
exit cost about 2 ms. The memory's contents, size and protections stay as they are; what a child
writes to is split back into small pages for that child alone, as copy-on-write always does.

Folding it all takes about a quarter of a second of the fork server's time, so it is done in
steps of one huge page, each only when no request is waiting, and only once the server has
forked START_AFTER children: it saves about 10 ms of kernel time a learner child (keeper
included), so it pays for itself about thirty children later. A single grading (``grade ID``,
cold) and a small batch never pay for it; a class's batch or the warm server pays once, and
then every fork is cheaper. The folded copy is the fork server's own: the pages it shared with
the grading process it was forked from are no longer shared (about 100-150 MiB more in all). Where the kernel cannot fold (an older
kernel, huge pages turned off, no memory to spare) nothing is folded and nothing else changes.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
from typing import Any

from grader.sandbox.procs import libc

MADV_COLLAPSE = 25  # linux/mman.h (6.1)
# Children forked before the folding starts: a single grading forks one or two, a class of five
# students fifteen; below about 45 in all, folding would cost more than it saves.
START_AFTER = 16
_DEFAULT_HUGE = 2 << 20


def huge_page_size() -> int:
    """The size of a huge page that a page-table entry one level up maps (2 MiB on x86-64)."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") as handle:
            size = int(handle.read().strip())
    except (OSError, ValueError):
        return _DEFAULT_HUGE
    return size if size > 0 and size & (size - 1) == 0 else _DEFAULT_HUGE


def anonymous_ranges(maps: str, huge: int) -> list[tuple[int, int]]:
    """The whole huge pages of the private, writable, anonymous mappings in ``maps`` (the text
    of /proc/self/maps): (start, end) pairs, aligned to ``huge``. Mappings of files are left
    alone: a fork does not copy the page-table entries of those it never wrote to."""
    ranges = []
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 5:
            continue
        span, perms = fields[0], fields[1]
        name = fields[5].strip() if len(fields) == 6 else ""
        if not perms.startswith("rw") or perms[3:4] != "p":
            continue
        if name and name != "[heap]" and not name.startswith("[anon:"):
            continue  # a file's, or the kernel's own ([stack], [vdso], [vvar], ...)
        try:
            low, high = (int(part, 16) for part in span.split("-", 1))
        except ValueError:
            continue
        start = (low + huge - 1) & ~(huge - 1)
        end = high & ~(huge - 1)
        if end > start:
            ranges.append((start, end))
    return ranges


@functools.cache
def _madvise() -> Any:
    """libc's madvise, typed once (an address does not fit ctypes' default int)."""
    madvise = libc().madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise


class HugePageFolder:
    """The folding of one process's memory, a huge page per :meth:`step`.

    ``forked()`` counts the children forked so far; :meth:`wanted` says whether a step is due
    (enough children forked, something left to fold, the kernel still folding)."""

    def __init__(self, start_after: int = START_AFTER) -> None:
        self.start_after = start_after
        self.forks = 0
        self.folded = 0  # bytes
        self.refused = False  # nothing could be folded at all
        self._todo: list[tuple[int, int]] | None = None if sys.platform == "linux" else []
        self._huge = huge_page_size()

    @classmethod
    def for_server(cls) -> HugePageFolder:
        """The fork server's: GRADER_HUGEPAGES=0 turns the folding off (to measure what it
        saves)."""
        if os.environ.get("GRADER_HUGEPAGES", "1") == "0":
            return cls(start_after=sys.maxsize)
        return cls()

    def forked(self) -> None:
        self.forks += 1

    def wanted(self) -> bool:
        return self.forks >= self.start_after and (self._todo is None or bool(self._todo))

    def step(self) -> None:
        """Fold the next huge page (planned at the first step, from the mappings then)."""
        if self._todo is None:
            try:
                with open("/proc/self/maps") as handle:
                    maps = handle.read()
            except OSError:
                maps = ""
            self._todo = anonymous_ranges(maps, self._huge)
            self._todo.reverse()  # popped from the end: lowest addresses first
            return
        if not self._todo:
            return
        start, end = self._todo.pop()
        error = self._fold(start)
        if error in (errno.EPERM, errno.ENOSYS):  # a sandbox refuses the call itself
            self._todo = []
        elif error != errno.EINVAL and end - start > self._huge:
            self._todo.append((start + self._huge, end))
        # EINVAL: this mapping cannot be folded (a library marked it no-huge-page), or no
        # mapping can (a kernel before 6.1, huge pages turned off): the next mapping is tried.
        # Any other error (no huge page free just now, a mapping changed since it was
        # planned) is this page's alone.
        if not self._todo and not self.folded:
            self.refused = True

    def _fold(self, start: int) -> int:
        """Fold the huge page at ``start``: 0, or the error number."""
        if _madvise()(start, self._huge, MADV_COLLAPSE) == 0:
            self.folded += self._huge
            return 0
        return ctypes.get_errno() or errno.EINVAL
