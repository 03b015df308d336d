"""Golden scenarios, as exercism's test runner keeps them: a submission in, its result JSON out.

Each scenario grades one file with the real command line (`grade ID --file F --json OUT`) and
compares the result JSON with `tests/golden/results/<name>.json`, byte for byte, after the few
fields that differ between machines and runs are normalised (timings, the environment block).
They pin the whole pipeline (spec, sandboxed run, records, assembly, diagnosis) so that a change
of structure is proven not to change a single grade or message.

Regenerate after an intended change with `UPDATE_GOLDEN=1 python -m pytest
tests/test_golden_results.py`, and review the diff.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import PROBE_HOME, ROOT, run_cli

GOLDEN = Path(__file__).resolve().parent / "golden" / "results"
PROBE = "tests/fixtures/submissions"

# name: (exercise, submission relative to the repository root, extra options, probe home?)
SCENARIOS: dict[str, tuple[str, str, tuple[str, ...], bool]] = {
    "probe-correct": ("90", f"{PROBE}/correct.py", (), True),
    "probe-correct-cpu": ("90", f"{PROBE}/correct.py", ("--device", "cpu"), True),
    "probe-wrong": ("90", f"{PROBE}/wrong.py", (), True),
    "probe-syntax-error": ("90", f"{PROBE}/syntax_error.py", (), True),
    "probe-import-error": ("90", f"{PROBE}/import_error.py", (), True),
    "probe-loop-in-function": ("90", f"{PROBE}/infinite_loop_function.py", (), True),
    "probe-os-exit": ("90", f"{PROBE}/os_exit_function.py", (), True),
    "probe-prints": ("90", f"{PROBE}/prints.py", (), True),
    # correct answers from a file that patches torch: what its own process measured cannot count
    "probe-needs-review": ("90", f"{PROBE}/patched_but_correct.py", (), True),
    "probe-mutates-input": ("90", f"{PROBE}/mutates_input.py", (), True),
    "probe-tensor-subclass-zh": ("90", f"{PROBE}/tensor_subclass.py", ("--lang", "zh"), True),
    "ex01-starter": ("1", "exercises/exercise-01/exercise-01.py", (), False),
    "ex05-mutant-view": ("5", "exercises/exercise-05/mutants/assumes_contiguous.py", (), False),
    "ex07-reference-zh": ("7", "solutions/exercise-07/exercise-07.py", ("--lang", "zh"), False),
    "ex08-forbidden": ("8", "exercises/exercise-08/mutants/softmax_builtin.py", (), False),
    "ex14-loss-curve": ("14", "exercises/exercise-14/mutants/no_zero_grad.py", (), False),
}


def normalise(data: dict) -> dict:
    """What stays the same for the same submission on any machine: timings and the
    environment (Python, torch, platform, isolation tier) are replaced by fixed values."""
    data["duration_s"] = 0.0
    data["environment"] = {"normalised": True}
    for test in data["tests"]:
        test["duration_s"] = 0.0
    return data


def grade(name: str, tmp: Path) -> str:
    exercise, submission, options, probe = SCENARIOS[name]
    out = tmp / f"{name}.json"
    proc = run_cli(
        exercise,
        "--file",
        submission,
        "--json",
        str(out),
        "--no-report",
        *options,
        home=PROBE_HOME if probe else None,
        cwd=ROOT,
    )
    assert proc.returncode in (0, 1), f"{name}: exit {proc.returncode}\n{proc.stderr}"
    data = normalise(json.loads(out.read_text(encoding="utf-8")))
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("golden")
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = pool.map(lambda n: grade(n, tmp), SCENARIOS)
    return dict(zip(SCENARIOS, texts, strict=True))


@pytest.mark.slow  # grades every scenario with a `grade` process of its own
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_result_json_matches_golden(name, graded):
    got = graded[name]
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert golden.is_file(), f"no golden file {golden}: run with UPDATE_GOLDEN=1"
    want = golden.read_text(encoding="utf-8")
    if got != want:
        difference = first_difference(json.loads(got), json.loads(want))
        assert difference is None, (
            f"{name}: the result JSON changed at {difference}; regenerate with UPDATE_GOLDEN=1 "
            "if intended"
        )


# Float32 arithmetic is not the same on every CPU: torch's kernels sum in another order where
# the machine has wider vector units (AVX-512 against AVX2), so a value computed by the tests
# (a loss curve in a result's data) may differ in its last bits. Such values are compared to
# a float32's precision; every other field, and every text (the messages format numbers to a
# few digits), exactly.
FLOAT32_RTOL = 1e-5


def first_difference(got: object, want: object, path: str = "$") -> str | None:
    """Where ``got`` departs from ``want`` (None: nowhere), floats within FLOAT32_RTOL."""
    if isinstance(got, float) and isinstance(want, float):
        scale = max(abs(got), abs(want), 1e-12)
        same = got == want or abs(got - want) <= FLOAT32_RTOL * scale
        return None if same else f"{path}: {got!r} against {want!r}"
    if type(got) is not type(want):
        return f"{path}: {got!r} against {want!r}"
    if isinstance(got, dict):
        assert isinstance(want, dict)
        if got.keys() != want.keys():
            return f"{path}: keys {sorted(got)} against {sorted(want)}"
        for key in got:
            found = first_difference(got[key], want[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(got, list):
        assert isinstance(want, list)
        if len(got) != len(want):
            return f"{path}: {len(got)} items against {len(want)}"
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if got == want else f"{path}: {got!r} against {want!r}"


def test_golden_results_allow_a_float32_rounding_and_nothing_else():
    assert first_difference({"a": [0.33070534467697144]}, {"a": [0.3307053744792938]}) is None
    assert first_difference({"a": [0.3307]}, {"a": [0.3308]}) == "$.a[0]: 0.3307 against 0.3308"
    assert first_difference({"m": "loss 0.3307"}, {"m": "loss 0.3308"}) is not None
    assert first_difference({"n": 1}, {"n": 1.0}) is not None
    assert first_difference({"a": [1.0]}, {"a": [1.0, 2.0]}) == "$.a: 1 items against 2"
    assert first_difference({"a": 1}, {"b": 1}) is not None


def test_every_golden_file_has_a_scenario():
    names = {p.stem for p in GOLDEN.glob("*.json")}
    assert names == set(SCENARIOS), "a golden file without a scenario (or the reverse)"
