"""A learner's output is shown as their terminal would show it: a progress bar's last drawing,
not every drawing joined by ``\\r``; no colour codes written out as ``\\x1b[32m``. The stored
result keeps the output as it was written; what is shown stays inert (no control reaches a
terminal or a report)."""

from __future__ import annotations

import dataclasses
import json
import re

from hypothesis import given
from hypothesis import strategies as st

from grader.render import feedback, terminal
from grader.render.html import render_result
from grader.results import Result, Status
from grader.text import as_a_terminal_shows, inert
from tests.conftest import FIXTURES

ACTS = "\r\x08\x1b\x9b"
TQDM = "".join(f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100" for p in range(0, 101, 10))


def test_a_progress_bar_is_its_last_drawing():
    assert as_a_terminal_shows(TQDM + "\ndone\n") == "100%|##########| 100/100\ndone\n"


def test_colours_and_titles_are_gone_and_their_text_stays():
    coloured = "\x1b[1;32mepoch\x1b[0m 3: loss \x1b[31m0.25\x1b[m\x1b]0;training\x07"
    assert as_a_terminal_shows(coloured) == "epoch 3: loss 0.25"


def test_carriage_return_overwrites_and_the_rest_of_a_longer_line_stays():
    assert as_a_terminal_shows("loss 0.123456\rloss 0.5") == "loss 0.523456"


def test_erasing_and_backspace_do_what_a_terminal_does():
    assert as_a_terminal_shows("50%\r\x1b[Kdone") == "done"
    assert as_a_terminal_shows("50%\r\x1b[0Kdone") == "done"
    assert as_a_terminal_shows("abc\x1b[2Kx") == "   x"  # the cursor stays where it was
    assert as_a_terminal_shows("abcd\x08\x08\x1b[1Kx") == "  xd"  # erased up to the cursor
    assert as_a_terminal_shows("12\x083") == "13"
    assert as_a_terminal_shows("\x08\x08ok") == "ok"  # never before the line's start


def test_windows_line_ends_are_line_ends():
    assert as_a_terminal_shows("a\r\nb\r\n") == "a\nb\n"


def test_other_controls_are_left_for_inert_to_write_out():
    shown = as_a_terminal_shows("x\x00y\x07\rz")
    assert shown == "z\x00y\x07"
    assert inert(shown) == "z\\x00y\\x07"


_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters=ACTS) | st.sampled_from(["\n", "\t"]),
    max_size=60,
)
_NOISY = st.lists(
    st.one_of(
        _TEXT,
        st.sampled_from(
            [
                "\r",
                "\r\n",
                "\x08",
                "\x1b[K",
                "\x1b[1K",
                "\x1b[2K",
                "\x1b[31m",
                "\x1b[0m",
                "\x1b[2J",
                "\x1b[H",
                "\x1b[5A",
                "\x1b]0;title\x07",
                "\x1b]8;;http://x\x1b\\",
                "\x1b",
                "\x1b[",
                "\x9b",
                "\x9b1;2m",
                "\x1bc",
            ]
        ),
    ),
    max_size=30,
).map("".join)


@given(_TEXT)
def test_output_without_terminal_acts_is_shown_as_it_is(text):
    assert as_a_terminal_shows(text) == text


@given(_NOISY)
def test_no_terminal_act_is_left_and_the_lines_are_the_outputs(output):
    shown = as_a_terminal_shows(output)
    assert not any(c in shown for c in ACTS)
    assert shown.count("\n") == output.replace("\r\n", "\n").count("\n")
    assert as_a_terminal_shows(shown) == shown
    # what is shown is the output's own text: nothing the acts did not leave
    assert set(shown) <= set(output) | {" "}


@given(st.lists(st.text(alphabet="0123456789%|# ", min_size=8, max_size=8), min_size=1))
def test_redrawing_a_line_of_one_width_shows_the_last_drawing(frames):
    assert as_a_terminal_shows("\r" + "\r".join(frames)) == frames[-1].rstrip(" ")


# -- where learners read it --------------------------------------------------------------------


def _failing_with(output: str) -> Result:
    result = Result.from_dict(
        json.loads((FIXTURES / "results" / "failing.json").read_text(encoding="utf-8"))
    )
    first = next(t for t in result.tests if t.status is Status.FAILED)
    return dataclasses.replace(result, tests=(dataclasses.replace(first, output=output),))


def test_the_terminal_summary_the_report_and_the_feedback_show_the_last_drawing():
    output = "\x1b[32mtraining\x1b[0m\n" + TQDM + "\n"
    result = _failing_with(output)
    last = "100%|##########| 100/100"
    summary = terminal.render(result, width=100)
    assert last in summary and "50/100" not in summary and "\\r" not in summary
    assert "\\x1b" not in summary and "training" in summary
    page = render_result(result)
    body = re.search(r'<pre class="output"[^>]*>(.*?)</pre>', page, re.S)
    assert body is not None
    assert "training\n" + last in body.group(1)
    assert "\\r" not in body.group(1) and "\\x1b" not in body.group(1)
    # the page of feedback an instructor hands back
    shown = feedback._failure(result, [result.tests[0]], "en")["output"]
    assert shown.strip() == "training\n" + last
    # the result itself keeps what the learner's code wrote
    assert json.loads(result.to_json())["tests"][0]["output"] == output
