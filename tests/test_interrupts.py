"""A Ctrl-C is never lost while a grading's loop waits (grader.interrupts).

Python raises KeyboardInterrupt in whatever code the main thread runs when SIGINT arrives; in
a finaliser (``__del__``, a gc or weakref callback: Dask's client installs one) the exception
is printed as "Exception ignored" and dropped. A driver of ``grade batch --cluster`` lost a
Ctrl-C that way and graded on to the end."""

from __future__ import annotations

import signal
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.interrupts import watch
from tests.conftest import ctrl_c_in_a_finaliser


def test_python_drops_a_ctrl_c_that_lands_in_a_finaliser(monkeypatch):
    """The premise: without a watch, the KeyboardInterrupt goes to the unraisable hook
    ("Exception ignored") and no further."""
    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(type(u.exc_value)))
    ctrl_c_in_a_finaliser()  # no KeyboardInterrupt reaches here
    assert dropped == [KeyboardInterrupt]


def test_a_ctrl_c_swallowed_by_a_finaliser_is_raised_at_the_next_check():
    with pytest.raises(KeyboardInterrupt), watch() as ctrl_c:
        ctrl_c_in_a_finaliser()
        ctrl_c.check()
        raise AssertionError("the check did not raise it")


def test_an_untaken_ctrl_c_is_raised_when_the_watch_ends():
    with pytest.raises(KeyboardInterrupt), watch():
        ctrl_c_in_a_finaliser()


def test_a_ctrl_c_that_is_raised_is_not_raised_again():
    caught = 0
    with watch() as ctrl_c:
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            caught += 1
        ctrl_c.check()
    assert caught == 1


def test_nothing_else_changes_and_the_hook_before_is_back_after():
    sigint, hook = signal.getsignal(signal.SIGINT), sys.unraisablehook
    with watch():
        assert signal.getsignal(signal.SIGINT) is sigint  # whoever's it was, it stays
    assert sys.unraisablehook is hook
    with pytest.raises(KeyboardInterrupt), watch():
        signal.raise_signal(signal.SIGINT)
    assert sys.unraisablehook is hook


class _Broken:
    def __del__(self) -> None:
        raise ValueError("a finaliser's own bug")


def test_what_else_a_finaliser_drops_still_reaches_the_hook_before(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(type(u.exc_value)))
    with watch() as ctrl_c:
        _Broken()
        ctrl_c.check()
    assert seen == [ValueError]


def test_a_watch_inside_another_shares_it():
    with pytest.raises(KeyboardInterrupt), watch() as outer:
        with watch() as inner:
            assert inner is outer
            ctrl_c_in_a_finaliser()
        raise AssertionError("the inner watch did not raise it")


def test_a_handler_of_someone_elses_decides_what_a_ctrl_c_does():
    seen = []

    def theirs(signum, frame):  # a notebook kernel's, say
        seen.append(signum)

    before = signal.signal(signal.SIGINT, theirs)
    try:
        with watch() as ctrl_c:  # it raises nothing: there is nothing to keep
            ctrl_c_in_a_finaliser()
            ctrl_c.check()
        assert seen == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # an ignored Ctrl-C stays ignored
        with watch() as ctrl_c:
            ctrl_c_in_a_finaliser()
            ctrl_c.check()
    finally:
        signal.signal(signal.SIGINT, before)


def test_outside_the_main_thread_a_watch_changes_nothing():
    """Python raises KeyboardInterrupt only in the main thread: a loop in another thread
    (a server's) must not take the main thread's Ctrl-C."""
    before = sys.unraisablehook
    outcome = []

    def loop():
        with watch():
            outcome.append(sys.unraisablehook)

    thread = threading.Thread(target=loop)
    thread.start()
    thread.join()
    assert outcome == [before]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["work", "swallowed", "raised", "check"]), max_size=12))
def test_every_ctrl_c_stops_the_loop_once_and_no_later_than_the_next_check(steps):
    """A loop of generated turns: some work, a Ctrl-C that a finaliser swallows, one raised
    where it can propagate, a check. One KeyboardInterrupt leaves the watch if any Ctrl-C
    arrived, none otherwise; the loop stops at the first raised Ctrl-C's own turn or at the
    first check after a swallowed one, whichever comes first, else at the watch's end."""
    done: list[int] = []
    interrupted = False
    try:
        with watch() as ctrl_c:
            for turn, step in enumerate(steps):
                if step == "swallowed":
                    ctrl_c_in_a_finaliser()
                elif step == "raised":
                    signal.raise_signal(signal.SIGINT)
                elif step == "check":
                    ctrl_c.check()
                done.append(turn)
    except KeyboardInterrupt:
        interrupted = True
    raised = [n for n, s in enumerate(steps) if s == "raised"]
    swallowed = [n for n, s in enumerate(steps) if s == "swallowed"]
    checked = [n for n, s in enumerate(steps) if s == "check" and swallowed and n > swallowed[0]]
    stops = raised[:1] + checked[:1]
    assert interrupted == bool(raised or swallowed)
    assert len(done) == (min(stops) if stops else len(steps))
