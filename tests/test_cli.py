"""The `grade` command as learners and authors use it: commands, files written, exit codes."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import cli
from grader.results import Result, Status
from tests.conftest import PROBE_HOME, ROOT, SUBMISSIONS, cli_here, run_cli, watch_cli

SOLUTION_05 = ROOT / "solutions" / "exercise-05" / "exercise-05.py"
STARTER_05 = ROOT / "exercises" / "exercise-05" / "exercise-05.py"


def main(capsys, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run a command that never grades, in this process (fast)."""
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = cli.main(list(args))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("GRADE_LANG", "en")
    monkeypatch.setenv("NO_COLOR", "1")


# -- instant commands ------------------------------------------------------------------------


def test_help_and_version(capsys):
    code, out, _ = main(capsys, "--help")
    assert code == 0 and "grade init" in out and "grade validate" in out
    code, out, _ = main(capsys)
    assert code == 2 and "grade ID" in out
    code, out, _ = main(capsys, "--version")
    assert code == 0 and out.startswith("grade ")


@pytest.mark.parametrize(
    "command",
    ["list", "show", "hint", "init", "reset", "watch", "batch", "validate", "new", "report"],
)
def test_every_command_has_help(capsys, command):
    code, out, _ = main(capsys, command, "--help")
    assert code == 0
    assert "usage: grade" in out


def test_grade_has_help(capsys):
    code, out, _ = main(capsys, "5", "--help")
    assert code == 0 and "--device" in out and "--json" in out


def test_every_command_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in cli.COMMANDS:
        assert f"grade {command}" in readme, command


def test_list_outside_a_workspace(capsys, tmp_path):
    code, out, _ = main(capsys, "list", cwd=tmp_path)
    assert code == 0
    assert "exercise-05" in out and "not started" in out
    assert "grade init" in out


def test_show_in_both_languages(capsys):
    code, out, _ = main(capsys, "show", "5")
    assert code == 0 and "flatten_transposed(x: Tensor) -> Tensor" in out
    code, out, _ = main(capsys, "show", "view-contiguous", "--lang", "zh")
    assert code == 0 and "修复" in out


def test_unknown_exercise_suggests(capsys):
    code, _, err = main(capsys, "show", "view-contigous")
    assert code == 2
    assert err.startswith("Error: no exercise 'view-contigous'")
    assert "view-contiguous" in err
    assert "Traceback" not in err


def test_bad_option_is_a_usage_error(capsys):
    code, _, err = main(capsys, "5", "--device", "tpu")
    assert code == 2 and err.startswith("Error:") and "Traceback" not in err
    code, _, err = main(capsys, "--frobnicate")
    assert code == 2


@pytest.mark.parametrize(
    "command",
    [
        ["5", "--file", "x.py"],
        ["preview", "5", "--file", "x.py"],
        ["validate", "5"],
        ["batch", "x"],
    ],
    ids=["grade", "preview", "validate", "batch"],
)
@pytest.mark.parametrize("seed", [str(10**23), str(-(2**63) - 1), "1e3"])
def test_a_seed_torch_cannot_take_is_a_usage_error_of_every_command(capsys, command, seed):
    """A seed out of range was taken by local grading and refused by the warm server, which
    was then said to be unusable."""
    code, _, err = main(capsys, *command, "--seed", seed)
    assert code == 2 and err.startswith("Error: argument --seed:"), err


@pytest.mark.parametrize(
    "args",
    [
        ["5", "--file", "-x.py"],
        ["5", "--json", "-out.json", "--file", "x.py"],
        ["batch", "-subs"],
        ["preview", "5", "--file", "-x.py"],
    ],
)
def test_a_name_that_starts_with_a_dash_is_said_to_be_read_as_an_option(capsys, args):
    """argparse reads `-x.py` as an option: `--file -x.py` said only "expected one
    argument", `grade batch -subs` that no folder was given."""
    dashed = next(a for a in args if a.startswith("-") and not a.startswith("--"))
    code, _, err = main(capsys, *args)
    assert code == 2 and f"'{dashed}' was read as an option" in err and f"./{dashed}" in err


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(min_size=1, max_size=12).map(lambda t: "-" + t))
def test_any_dashed_value_is_a_usage_error_or_read(capsys, name):
    """Whatever follows `--file`, the command reads it or says, as a usage error, why not;
    where argparse took it for an option, the error says so."""
    code, _, err = main(capsys, "preview", "5", "--file", name)
    assert code == 2 and err.startswith("Error:") and "Traceback" not in err
    if "expected one argument" in err and not name.startswith(("--", "-h")):
        assert "was read as an option" in err, err


@settings(max_examples=15, deadline=None)
@given(number=st.integers(1, 99), notebooks=st.booleans())
def test_init_names_a_first_step_the_course_has(number, notebooks):
    """`grade init` said "then `grade show 1`" and "open exercise-01.ipynb" whatever the
    course: in a course without exercise-01 that step was "no exercise '1'"."""
    import tempfile

    from grader.authoring.scaffold import scaffold
    from grader.catalog import Catalog

    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        (course / "exercises").mkdir(parents=True)
        (course / "solutions").mkdir()
        ident = f"exercise-{number:02d}"
        scaffold(Catalog(course), ident, "scaling")
        flags = ["--notebooks"] if notebooks else []
        proc = cli_here("init", str(Path(tmp) / "ws"), "--course", str(course), *flags)
        assert proc.returncode == 0, proc.stderr
        step = proc.stdout.splitlines()[-1]
        assert step == (
            f"Next: open {ident}.ipynb in Jupyter (`jupyter lab`)."
            if notebooks
            else f"Next: `grade list`, then `grade show {number}`."
        )
        assert cli_here("show", str(number), "--course", str(course)).returncode == 0


def test_missing_file_is_a_usage_error(capsys, tmp_path):
    code, _, err = main(capsys, "5", "--file", str(tmp_path / "nope.py"))
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("kind", ["the graded file", "a notebook", "a link", "a pipe"])
@pytest.mark.parametrize("option", ["--json", "--report"])
def test_an_output_that_would_replace_code_a_link_or_a_special_file_is_refused(
    capsys, tmp_path, kind, option
):
    """``--report exercise-05.py`` wrote HTML over the learner's code (no backup); over a link,
    a pipe or a device (``/dev/full``) the output replaced the link or the node itself. Each
    is refused before grading, with one error line, and left as it was."""
    graded = tmp_path / "exercise-05.py"
    graded.write_bytes(SOLUTION_05.read_bytes())
    target = tmp_path / "target.json"
    target.write_text("{}")
    if kind == "the graded file":
        out = graded
    elif kind == "a notebook":
        out = tmp_path / "work.ipynb"
        out.write_text("{}")
    elif kind == "a link":
        out = tmp_path / "out.json"
        out.symlink_to(target)
    else:
        out = tmp_path / "out.json"
        os.mkfifo(out)
    before = os.lstat(out)
    code, _, err = main(capsys, "5", "--file", str(graded), option, str(out))
    assert code == 2 and err.count("Error:") == 1 and "Traceback" not in err, err
    after = os.lstat(out)
    assert (after.st_ino, after.st_mode, after.st_mtime_ns) == (
        before.st_ino,
        before.st_mode,
        before.st_mtime_ns,
    )
    assert graded.read_bytes() == SOLUTION_05.read_bytes()
    assert target.read_text() == "{}"


def test_no_file_outside_a_workspace(capsys, tmp_path):
    code, _, err = main(capsys, "5", cwd=tmp_path)
    assert code == 2 and "no exercise-05.py here" in err and "grade init" in err


def test_hint_outside_a_workspace(capsys, tmp_path):
    code, out, _ = main(capsys, "hint", "5", cwd=tmp_path)
    assert code == 0 and out.startswith("Hint 1/3:")
    code, out, _ = main(capsys, "hint", "5", "--all", cwd=tmp_path)
    assert "Hint 3/3" in out


def test_workspace_init_hint_and_reset(capsys, tmp_path):
    workspace = tmp_path / "ws"
    code, out, _ = main(capsys, "init", str(workspace))
    assert code == 0
    assert (workspace / "exercise-05.py").read_text() == STARTER_05.read_text()
    assert (workspace / "README.md").is_file()
    # hints advance one at a time and stay on the last
    seen = [main(capsys, "hint", "5", cwd=workspace)[1].split(":")[0] for _ in range(4)]
    assert seen == ["Hint 1/3", "Hint 2/3", "Hint 3/3", "Hint 3/3"]
    # init again never overwrites the learner's work
    (workspace / "exercise-05.py").write_text("# my work\n")
    code, out, _ = main(capsys, "init", str(workspace))
    assert "kept as they were" in out
    assert (workspace / "exercise-05.py").read_text() == "# my work\n"
    # reset restores the starter and keeps a backup
    code, out, _ = main(capsys, "reset", "5", cwd=workspace)
    assert code == 0 and "saved as" in out
    assert (workspace / "exercise-05.py").read_text() == STARTER_05.read_text()
    backups = list((workspace / ".grade" / "backups").iterdir())
    assert len(backups) == 1 and backups[0].read_text() == "# my work\n"


@pytest.mark.parametrize("notebooks", [False, True])
@pytest.mark.parametrize("where", ["under a file", "a name too long"])
def test_init_where_no_folder_can_be_made_is_one_usage_error(capsys, tmp_path, where, notebooks):
    """It was exit 3 with a traceback (NotADirectoryError, ENAMETOOLONG, EACCES)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "sub" if where == "under a file" else tmp_path / ("x" * 300)
    code, _, err = main(capsys, "init", str(target), *(["--notebooks"] if notebooks else []))
    assert code == 2 and err.count("Error:") == 1 and "Traceback" not in err
    assert "cannot create a workspace in" in err


@pytest.mark.parametrize("notebooks", [False, True])
def test_a_grade_file_where_the_workspace_folder_goes_is_said_before_anything_is_written(
    capsys, tmp_path, notebooks
):
    """``init`` copied every starter, then failed with "File exists"; ``hint`` (and grading)
    there went on as if outside a workspace, and never recorded progress."""
    (tmp_path / ".grade").write_text("x")
    code, _, err = main(capsys, "init", str(tmp_path), *(["--notebooks"] if notebooks else []))
    assert code == 2 and err.count("Error:") == 1 and ".grade is a file, not a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".grade"]
    code, _, err = main(capsys, "hint", "5", cwd=tmp_path)
    assert code == 2 and ".grade is a file, not a folder" in err


def test_a_grade_file_in_a_folder_above_is_not_the_workspaces(capsys, tmp_path):
    """Only the current folder's ``.grade`` is ours to judge: one further up (another tool's,
    in a home folder) leaves the commands as they were."""
    (tmp_path / ".grade").write_text("another tool's settings")
    below = tmp_path / "course"
    below.mkdir()
    code, out, _ = main(capsys, "hint", "5", cwd=below)
    assert code == 0 and out.startswith("Hint 1/3:")


def test_reset_outside_a_workspace(capsys, tmp_path):
    code, _, err = main(capsys, "reset", "5", cwd=tmp_path)
    assert code == 2 and "not in a workspace" in err


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_new_scaffolds_a_valid_exercise(capsys, tmp_path, monkeypatch):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    monkeypatch.setenv("GRADER_HOME", str(tmp_path))
    code, out, _ = main(capsys, "new", "exercise-30")
    assert code == 0 and "exercise.yaml" in out
    code, _, err = main(capsys, "new", "exercise-30")
    assert code == 2 and "already exists" in err
    code, _, _ = main(capsys, "new", "thirty")
    assert code == 2
    proc = run_cli("validate", home=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "✓ exercise-30" in proc.stdout


# -- grading ---------------------------------------------------------------------------------


def test_reference_passes_with_exit_0_and_json(tmp_path):
    out = tmp_path / "r.json"
    proc = run_cli("exercise-05", "--file", str(SOLUTION_05), "--json", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr
    result = Result.from_json(out.read_text())
    assert result.status is Status.PASSED and result.score == result.max_score
    assert "All tests passed." in proc.stdout
    assert f"JSON: {out}" in proc.stdout


def test_json_dash_writes_the_result_to_stdout_and_the_summary_to_stderr(tmp_path):
    """``--json -`` wrote a file named "-" in the current folder; a pipe got the summary."""
    proc = run_cli(
        "exercise-05", "--file", str(STARTER_05), "--json", "-", "--no-report", cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stderr
    result = Result.from_json(proc.stdout)
    assert result.exercise_id == "exercise-05" and 0 <= result.score < result.max_score
    assert "view() on a non-contiguous tensor" in proc.stderr
    assert not (tmp_path / "-").exists()


def test_watch_refuses_json_dash(tmp_path):
    proc = run_cli("watch", "exercise-05", "--file", str(STARTER_05), "--json", "-", cwd=tmp_path)
    assert proc.returncode == 2 and "give a file" in proc.stderr
    assert not (tmp_path / "-").exists()


def test_failing_starter_exits_1_with_diagnosis(tmp_path):
    report = tmp_path / "report.html"
    proc = run_cli("5", "--file", str(STARTER_05), "--report", str(report))
    assert proc.returncode == 1
    assert "view() on a non-contiguous tensor" in proc.stdout
    assert "at line 15 in flatten_transposed" in proc.stdout
    assert report.is_file() and "exercise-05" in report.read_text()


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_grading_in_a_workspace_records_progress(tmp_path):
    workspace = tmp_path / "ws"
    assert cli_here("init", str(workspace)).returncode == 0
    proc = run_cli("5", cwd=workspace)
    assert proc.returncode == 1
    assert (workspace / ".grade" / "results" / "exercise-05.json").is_file()
    assert (workspace / ".grade" / "reports" / "exercise-05.html").is_file()
    first = Result.from_json((workspace / ".grade" / "results" / "exercise-05.json").read_text())
    assert 0 < first.score < first.max_score
    listing = cli_here("list", cwd=workspace).stdout
    line = next(row for row in listing.splitlines() if row.startswith("exercise-05"))
    assert "failing" in line and f"{first.score:g}/{first.max_score:g}" in line
    shutil.copyfile(SOLUTION_05, workspace / "exercise-05.py")
    assert run_cli("5", cwd=workspace).returncode == 0
    line = next(
        row
        for row in cli_here("list", cwd=workspace).stdout.splitlines()
        if row.startswith("exercise-05")
    )
    assert "passed" in line and f"{first.max_score:g}/{first.max_score:g}" in line
    report = (workspace / ".grade" / "reports" / "exercise-05.html").read_text()
    assert "for practice" in report  # a workspace verdict is advisory
    proc = cli_here("report", cwd=workspace)
    assert proc.returncode == 0 and "1/" in proc.stdout
    dashboard = (workspace / ".grade" / "reports" / "index.html").read_text()
    assert 'data-exercise="exercise-05" data-status="passed"' in dashboard
    assert '<a href="exercise-05.html">' in dashboard


def test_chinese_summary(tmp_path):
    proc = run_cli("5", "--file", str(STARTER_05), "--no-report", "--lang", "zh")
    assert proc.returncode == 1
    assert "需要修改的地方" in proc.stdout and "得分" in proc.stdout


def test_cuda_only_on_a_machine_without_cuda():
    proc = run_cli(
        "90",
        "--file",
        str(SUBMISSIONS / "correct.py"),
        "--device",
        "cuda",
        "--no-report",
        home=PROBE_HOME,
    )
    if "CUDA is not available" not in proc.stdout + proc.stderr:
        pytest.skip("this machine has CUDA")
    # every CUDA case is skipped (not failed) and nothing else was asked for: nothing is graded,
    # which is a usage error, not a pass
    assert proc.returncode == 2
    assert "nothing was graded" in proc.stderr
    assert "CUDA is not available" in proc.stderr


def test_malformed_spec_exits_2(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(PROBE_HOME, home)
    spec = home / "exercises" / "exercise-90" / "exercise.yaml"
    spec.write_text(spec.read_text().replace("kind: implement", "kind: implement\nkind: fix"))
    proc = run_cli("90", "--file", str(SUBMISSIONS / "correct.py"), home=home)
    assert proc.returncode == 2
    assert "duplicate key 'kind'" in proc.stderr and "exercise.yaml" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_broken_hidden_tests_are_an_internal_error(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(PROBE_HOME, home)
    tests = home / "exercises" / "exercise-90" / "tests.py"
    tests.write_text(
        "import torch\nraise RuntimeError('broken hidden tests')\n" + tests.read_text()
    )
    proc = run_cli("90", "--file", str(SUBMISSIONS / "correct.py"), "--no-report", home=home)
    assert proc.returncode == 3
    assert "broken hidden tests" in proc.stderr


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_watch_regrades_on_save(tmp_path):
    submission = tmp_path / "exercise-90.py"
    shutil.copyfile(SUBMISSIONS / "wrong.py", submission)
    env = dict(
        os.environ, GRADER_HOME=str(PROBE_HOME), NO_COLOR="1", GRADE_LANG="en", PYTHONUNBUFFERED="1"
    )
    proc = watch_cli(
        *("90", "--file", str(submission), "--device", "cpu", "--no-report", "--interval", "0.2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    seen: list[str] = []

    def read_until(text: str, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = lines.get(timeout=max(end - time.monotonic(), 0.01))
            except queue.Empty:
                break
            seen.append(line)
            if text in line:
                return
        raise AssertionError(f"never saw {text!r}:\n{''.join(seen)}")

    try:
        read_until("score 1/4")
        # no pause needed: a save is seen by its content, whenever it lands
        shutil.copyfile(SUBMISSIONS / "correct.py", submission)
        read_until("score 4/4")
        # the score stays in sight: the last line of every re-grade
        read_until("exercise-90  score 4/4  passed")
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    assert code == 0


# -- the CLI tells the truth (what it prints matches what happened) ----------------------------


def test_an_output_that_cannot_be_written_is_one_error_after_the_summary(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = run_cli(
        "5",
        "--file",
        str(SOLUTION_05),
        "--json",
        str(blocker / "result.json"),
        "--report",
        str(tmp_path / "report.html"),
    )
    assert proc.returncode == 2
    assert "All tests passed." in proc.stdout  # the summary is still printed
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        f"Error: cannot write {blocker / 'result.json'}: {blocker} is not a folder you can write to"
    ]
    assert (tmp_path / "report.html").is_file()  # what could be written was written


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_list_shows_the_points_grading_gives(tmp_path):
    proc = cli_here("list")
    line = next(row for row in proc.stdout.splitlines() if row.startswith("exercise-02"))
    out = tmp_path / "r.json"
    solution = ROOT / "solutions" / "exercise-02" / "exercise-02.py"
    run_cli("2", "--file", str(solution), "--json", str(out), "--no-report", "--device", "cpu")
    result = Result.from_json(out.read_text())
    assert f" {result.max_score:g} (+" in line, line
    assert "each test counts once per device it runs on" in proc.stdout


def test_messages_name_the_learners_file_never_the_sandbox(tmp_path):
    submission = tmp_path / "mine" / "exercise-90.py"
    submission.parent.mkdir()
    submission.write_text(
        "import traceback, warnings\n"
        "print('my file is', __file__)\n"
        "def double(x):\n"
        "    warnings.warn('careful')\n"
        "    traceback.print_stack()\n"
        "    return x * 2\n"
        "def triple(x):\n"
        "    raise ValueError('no')\n"
    )
    proc = run_cli(
        "90",
        "--file",
        "mine/exercise-90.py",
        "--no-report",
        "--json",
        str(tmp_path / "r.json"),
        home=PROBE_HOME,
        cwd=tmp_path,
    )
    result = Result.from_json((tmp_path / "r.json").read_text())
    shown = proc.stdout + "".join(t.output + t.message for t in result.tests)
    assert "mine/exercise-90.py" in shown  # the warning and the stack name it as passed
    for sandbox in ("/tmp/work", "grader-child-", "grader/sandbox", "child.py", "site-packages"):
        assert sandbox not in shown, sandbox
    triple = next(t for t in result.tests if t.name == "test_triple")
    assert triple.frames and triple.frames[-1].line == 8


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_fix_lines_name_real_commands():
    proc = run_cli(
        "1", "--file", str(ROOT / "exercises" / "exercise-01" / "exercise-01.py"), "--no-report"
    )
    assert "grade hint 1" in proc.stdout
    assert "grade hint ID" not in proc.stdout and "grade reset ID" not in proc.stdout


def _grade_probe_on_cpu(submission: Path, out: Path) -> subprocess.CompletedProcess:
    return run_cli(
        "90",
        "--file",
        str(submission),
        "--device",
        "cpu",
        "--no-report",
        "--json",
        str(out),
        home=PROBE_HOME,
    )


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_a_timeout_names_the_line_it_was_stuck_on(tmp_path):
    out = tmp_path / "r.json"
    proc = _grade_probe_on_cpu(SUBMISSIONS / "infinite_loop_function.py", out)
    double = next(t for t in Result.from_json(out.read_text()).tests if t.device == "cpu")
    assert "did not return within 1.5 s" in double.message
    assert "It was at line 2 (in double) when it was stopped." in double.message
    assert "most recent call first" not in proc.stdout + double.output  # the snapshot is no output
    assert "at line 2 in double:  while True:" in proc.stdout


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_a_timeout_in_a_loop_that_floods_its_output_names_its_line(tmp_path):
    """The stack snapshot is read from a pipe the loop never stops filling: it is found there,
    and the grading goes on (no read of the learner's output waits for it to pause)."""
    out = tmp_path / "r.json"
    proc = _grade_probe_on_cpu(SUBMISSIONS / "flooding_loop_function.py", out)
    tests = Result.from_json(out.read_text()).tests
    double = next(t for t in tests if t.name == "test_double_values")
    assert "did not return within 1.5 s" in double.message
    assert "It was at line 5 (in double) when it was stopped." in double.message
    assert "most recent call first" not in proc.stdout + double.output
    assert double.output_truncated and len(double.output) < 64 * 1024
    assert next(t for t in tests if t.name == "test_triple").status is Status.PASSED


def test_one_failure_is_shown_once_whatever_it_spoiled():
    proc = run_cli(
        "90",
        "--file",
        str(SUBMISSIONS / "syntax_error.py"),
        "--device",
        "cpu",
        "--no-report",
        home=PROBE_HOME,
    )
    assert proc.stdout.count("syntax error at line") == 1
    assert "test_double_values, test_double_integers, test_triple" in proc.stdout


@pytest.mark.slow  # several gradings, a validate run, or gradings that run into their time limits
def test_chinese_columns_line_up(tmp_path):
    proc = run_cli(
        "90",
        "--file",
        str(SUBMISSIONS / "wrong.py"),
        "--device",
        "cpu",
        "--no-report",
        "--lang",
        "zh",
        home=PROBE_HOME,
    )
    from grader.i18n import display_width

    rows = [line for line in proc.stdout.splitlines() if line.startswith(("测试", "test_"))]
    starts = {
        display_width(row[: row.index("cpu") if "cpu" in row else row.index("✗")])
        for row in rows
        if "cpu" in row or "✗" in row
    }
    assert len(starts) == 1, rows


def test_the_chinese_cli_speaks_chinese(tmp_path):
    proc = cli_here("init", str(tmp_path / "ws"), "--lang", "zh")
    assert "工作区已在" in proc.stdout and "Workspace" not in proc.stdout
    proc = cli_here("report", "--lang", "zh", cwd=tmp_path / "ws")
    assert "个练习" in proc.stdout and "exercises passed" not in proc.stdout


def test_the_grade_process_skips_the_interpreters_teardown_but_not_its_exit_handlers():
    """After a cold grading the learner would wait a quarter of a second for Python to free
    torch's objects one by one: `grade` ends without that teardown, its exit code, output and
    exit handlers intact."""
    script = (
        "import atexit, sys\n"
        "class Teardown:\n"
        "    def __del__(self):\n"
        "        print('teardown ran', flush=True)\n"
        "KEEP = Teardown()\n"
        "atexit.register(lambda: print('exit handler ran'))\n"
        "sys.argv = ['grade', *sys.argv[1:]]\n"
        "from grader.cli import run\n"
        "run()\n"
    )
    ok = subprocess.run(
        [sys.executable, "-c", script, "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert ok.returncode == 0
    assert ok.stdout.splitlines() == [f"grade {cli.__version__}", "exit handler ran"]
    usage = subprocess.run(
        [sys.executable, "-c", script, "--no-such-option"], capture_output=True, text=True
    )
    assert usage.returncode == 2 and "unknown option --no-such-option" in usage.stderr
    assert "teardown ran" not in usage.stdout


@pytest.mark.parametrize(
    "args",
    [("--version",), ("show", "5"), ("list",), ("show", "view-contigous"), ("--frobnicate",)],
    ids=["version", "show", "list", "unknown-exercise", "bad-option"],
)
def test_the_console_script_answers_as_the_in_process_runner_does(args, tmp_path):
    """The `grade` console script itself (the one pip installs next to this interpreter), in a
    process of its own: the same exit code, stdout and stderr as ``cli_here`` gives for the same
    command, so that the tests running commands in-process prove what learners run."""
    script = Path(sys.executable).with_name("grade")
    assert script.is_file(), f"no console script at {script} (pip install -e .)"
    env = dict(os.environ, NO_COLOR="1", GRADE_LANG="en")
    proc = subprocess.run(
        [str(script), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    here = cli_here(*args, cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        here.returncode,
        here.stdout,
        here.stderr,
    )
    assert proc.returncode in (0, 2) and (proc.stdout or proc.stderr)


def test_list_and_dashboard_name_the_same_points(capsys, tmp_path):
    """`grade list` and the dashboard (`grade report`) read one source for an exercise's
    points (ExerciseSpec.points): for every exercise not yet graded, the dashboard's "– /N"
    is the list's N, and both name what CUDA cases add."""
    import re

    from grader.catalog import Catalog, project_root

    workspace = tmp_path / "ws"
    assert main(capsys, "init", str(workspace))[0] == 0
    code, listing, _ = main(capsys, "list", cwd=workspace)
    assert code == 0
    out = workspace / "index.html"
    assert main(capsys, "report", "--out", str(out), cwd=workspace)[0] == 0
    html = out.read_text(encoding="utf-8")
    specs = Catalog(project_root()).all()
    assert len(specs) >= 20
    for spec in specs:
        row = next(line for line in listing.splitlines() if line.startswith(spec.id))
        listed = re.search(r"\s(\d+)(?: \(\+(\d+) on CUDA\))?\s", row)
        assert listed, row
        cell = re.search(
            rf'data-exercise="{spec.id}".*?– /(\d+)(?: \(\+(\d+) on CUDA\))?</span>', html, re.S
        )
        assert cell, spec.id
        assert cell.groups() == listed.groups(), (spec.id, row)
    # exercise-02 grades cpu and meta cases: more than its tests' points counted once
    assert "exercise-02" in listing
    two = next(s for s in specs if s.id == "exercise-02")
    assert two.points.here > two.max_points


@pytest.mark.parametrize(
    "args",
    [
        ("batch", "SUBMISSIONS", "--out", ""),
        ("batch", "SUBMISSIONS", "--assignment", " "),
        ("batch", ""),
        ("batch", "SUBMISSIONS", "--student", ""),
        ("01", "--file", ""),
        ("01", "--json", ""),
        ("01", "--report", ""),
        ("report", "--out", ""),
        ("validate", "--junit", ""),
        ("preview", "01", "--file", ""),
        ("gradescope", "--assignment", ""),
        ("list", "--course", ""),
    ],
    ids=lambda a: " ".join(repr(x) if not x.strip() else x for x in a),
)
def test_an_empty_path_or_name_is_a_usage_error(tmp_path, args):
    """``--out ""`` (a shell variable that was not set) is a Path of the current folder, where
    grade batch wrote its outputs; ``--student ""`` graded the whole class. Every option that
    names a file, a folder or a student refuses an empty value, before anything runs."""
    args = tuple(str(SUBMISSIONS) if a == "SUBMISSIONS" else a for a in args)
    proc = cli_here(*args, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "an empty" in proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


@pytest.mark.parametrize("kind", ["link", "pipe"])
def test_no_output_anywhere_replaces_a_link_or_a_special_file(tmp_path, kind):
    """Every output goes through write_atomic (gradebooks, workspace files, reports): none of
    them renames a new file over a link or a pipe."""
    from grader.errors import UsageError
    from grader.fileio import write_atomic

    target = tmp_path / "target.csv"
    target.write_text("kept")
    out = tmp_path / "out.csv"
    if kind == "link":
        out.symlink_to(target)
    else:
        os.mkfifo(out)
    with pytest.raises(UsageError):
        write_atomic(out, "new")
    assert out.is_symlink() if kind == "link" else stat.S_ISFIFO(os.lstat(out).st_mode)
    assert target.read_text() == "kept"


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    interval=st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e400", "3601", "0.2", "x"])
    | st.floats().map(repr)
)
def test_grade_watch_takes_an_interval_it_can_wait_or_refuses_it_before_grading(tmp_path, interval):
    """``grade watch 1 --interval nan`` (or inf, -1) graded once, then ended with "internal
    error in the grader": ``time.sleep`` refuses what ``float`` took. Every interval is a
    number of seconds it can wait (up to an hour), or one usage error before anything is
    read or graded."""
    try:
        waits = 0 < float(interval) <= 3600
    except ValueError:
        waits = False
    for folder in ("exercises", "solutions"):  # a course with nothing to watch
        (tmp_path / folder).mkdir(exist_ok=True)
    proc = cli_here("watch", "no-such-exercise", "--interval", interval, "--course", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    said = proc.stderr.startswith("Error: argument --interval")
    assert said != waits, proc.stderr
    assert said or "no exercise 'no-such-exercise'" in proc.stderr, proc.stderr


@pytest.mark.parametrize("given", ["", ",", " , ,", ",,,"])
def test_batch_exercises_naming_none_is_one_usage_error_before_anything_is_graded(tmp_path, given):
    """``--exercises ""`` (an unset shell variable) or ``--exercises ,,,`` selected nothing,
    and the batch graded every exercise of the course instead, for a class an hour's work
    nobody asked for."""
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "exercise-01.py").write_text("x = 1\n")
    out = tmp_path / "out"
    proc = cli_here("batch", str(tmp_path / "subs"), "--out", str(out), "--exercises", given)
    assert proc.returncode == 2, proc.stderr
    assert "--exercises names no exercise" in proc.stderr
    assert not out.exists()
