"""What the grading process tells a worker in flight (grader.engine.handback)."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.engine.handback import Handback, send


def _pipe() -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    return read_fd, write_fd


def test_nothing_sent_means_grade_the_whole_group():
    read_fd, write_fd = _pipe()
    try:
        handback = Handback(read_fd)
        assert handback.last() is None
        assert not handback.stops_before(10**6)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_the_lowest_index_sent_wins():
    read_fd, write_fd = _pipe()
    try:
        handback = Handback(read_fd)
        assert send(write_fd, 5)
        assert handback.last() == 5
        assert not handback.stops_before(5) and handback.stops_before(6)
        assert send(write_fd, 9)  # a group only ever shrinks
        assert send(write_fd, 2)
        assert handback.last() == 2
        assert handback.stops_before(3)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_worker_without_a_pipe_grades_everything():
    assert Handback(None).last() is None
    assert not Handback(None).stops_before(1)


def test_a_gone_worker_is_no_error_for_the_grading_process():
    read_fd, write_fd = _pipe()
    os.close(read_fd)
    try:
        assert send(write_fd, 1) is False  # EPIPE, not an exception
    finally:
        os.close(write_fd)


def test_a_closed_grading_process_end_keeps_what_was_said():
    read_fd, write_fd = _pipe()
    send(write_fd, 3)
    os.close(write_fd)
    try:
        handback = Handback(read_fd)
        assert handback.last() == 3
        assert handback.last() == 3  # end of file: nothing more to read, nothing forgotten
    finally:
        os.close(read_fd)


_line = st.one_of(
    st.integers(min_value=0, max_value=10**6).map(lambda n: f"{n}\n".encode()),
    st.binary(max_size=24),  # anything else on the pipe
    st.sampled_from([b" 3\n", b"-1\n", b"+2\n", b"0" * 12 + b"1\n", "\u0661\n".encode()]),
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_line, max_size=12), cuts=st.lists(st.integers(0, 400), max_size=6))
def test_the_worker_keeps_the_lowest_whole_index_whatever_else_comes(lines, cuts):
    """However the bytes arrive (split anywhere, garbage between), the worker keeps the lowest
    index among the whole, well-formed lines that came; a partial or malformed line never
    shrinks the group (it would lose gradings nobody else does)."""
    data = b"".join(lines)
    read_fd, write_fd = _pipe()
    try:
        handback = Handback(read_fd)
        seen: list[int | None] = [handback.last()]  # nothing yet: a read with no news
        sent = 0
        for cut in sorted({min(c, len(data)) for c in cuts}) + [len(data)]:
            if cut > sent:
                os.write(write_fd, data[sent:cut])
                sent = cut
            seen.append(handback.last())
        expected = _lowest_whole(data)
        assert seen[-1] == expected
        # it only ever shrinks, and never below what was really sent
        known = [s for s in seen if s is not None]
        assert known == sorted(known, reverse=True)
        assert all(expected is not None and s >= expected for s in known)
    finally:
        os.close(read_fd)
        os.close(write_fd)


def _lowest_whole(data: bytes) -> int | None:
    """The model: the lowest of the whole lines that are one to nine ASCII digits."""
    values = [int(x) for x in data.split(b"\n")[:-1] if x.isdigit() and len(x) <= 9]
    return min(values) if values else None
