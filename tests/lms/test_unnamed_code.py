"""A student whose only code file names no exercise ("hw5.py", "solution.ipynb", "main.py")
got "missing" for every exercise, and 0 in every upload, as if nothing had been handed in.
Code handed in where no file is named after any exercise now makes every exercise
unreadable: no grade until the instructor looks. Beside a file that is named after an
exercise, such a file is a helper (utils.py) and changes nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.collect import Collector
from grader.lms.handin import Handin
from grader.lms.names import looks_like, match_name
from tests.lms.builders import code, write, zip_bytes

EXERCISES = ("exercise-01", "exercise-05", "exercise-07")


def gather(infos, tmp: Path, folder: Path) -> Handin:
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(folder, shown="alice/")
    return collector.finish()


def test_hw5_alone_is_withheld_not_zero(infos, tmp_path):
    write(tmp_path / "alice" / "hw5.py", code("alice"))
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert handin.files == {}
    assert set(handin.unreadable) == set(EXERCISES) == handin.unread_work
    assert "alice/hw5.py" in handin.unreadable["exercise-05"]
    assert "may be in it" in handin.unreadable["exercise-05"]


stems = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789 ", min_size=1, max_size=12)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stem=stems, notebook=st.booleans(), zipped=st.booleans(), helper_beside=st.booleans())
def test_code_that_names_no_exercise_is_never_a_zero_alone(
    infos, tmp_path_factory, stem, notebook, zipped, helper_beside
):
    name = stem.strip() + (".ipynb" if notebook else ".py")
    if not stem.strip() or stem.strip().startswith("."):
        return
    if match_name(name, EXERCISES) is not None or looks_like(name, EXERCISES) is not None:
        return  # named after an exercise: their own rules
    tmp = tmp_path_factory.mktemp("unnamed")
    folder = tmp / "alice"
    members = {name: code("alice")}
    if helper_beside:
        members["exercise-01.py"] = code("alice 1")
    if zipped:
        write(folder / "work.zip", zip_bytes(members))
    else:
        for member, text in members.items():
            write(folder / member, text)
    handin = gather(infos, tmp, folder)
    if helper_beside:  # a helper beside real work: the other exercises are missing, as before
        assert set(handin.files) == {"exercise-01"}
        assert handin.unreadable == {} and not handin.unread_work
    else:
        assert handin.files == {}
        assert set(handin.unreadable) == set(EXERCISES) == handin.unread_work
