"""The corpus of realistic mistakes (tests/corpus): does each get the diagnosis a teacher would
name, and is none of them told something that points away from the bug?

Each file is written the way a learner writes a wrong attempt (from the tutorials' pitfalls
and the trial of issue 23), not as a copy of an exercise's mutant; ``manifest.yaml`` names the
diagnosis it must get (or "none"), the other diagnoses that are also true of it, and the words
it must not show. Every file is graded once, on the CPU, in one engine.

A case is *right* when its diagnosis is shown and every other diagnosis shown is one the
manifest allows; *none* when no diagnosis is shown where one was due; *wrong way* when a
diagnosis outside those is shown, or a forbidden word appears, or the fix misses the words it
must show. The figures are printed; the test asks for at least 90% right and no wrong way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grader.diagnose import DiagnosisCatalog
from grader.wire import load_yaml
from tests.conftest import run_fresh

CORPUS = Path(__file__).with_name("corpus")
MANIFEST = CORPUS / "manifest.yaml"

# Graded in a fresh interpreter (this process must not fork learner children after tensor work,
# see tests/service.py): every file once, CPU only, two at a time; what a learner reads comes
# back as JSON, per file the tests that did not pass.
_GRADE = """
import json, sys
from pathlib import Path
from grader.catalog import Catalog, project_root
from grader.engine import GradeRequest, LocalEngine
root, files = Path(sys.argv[1]), json.loads(sys.argv[2])
requests = [
    GradeRequest(exercise=f.split("/")[0], source=(root / f).read_bytes(), filename=f,
                 devices=("cpu",))
    for f in files
]
with LocalEngine(Catalog(project_root()), jobs=2) as engine:
    results = engine.grade_many(requests)
out = {}
for f, r in zip(files, results):
    out[f] = [
        {"test": t.key, "status": t.status.value, "message": t.message,
         "diagnosis": None if t.diagnosis is None else {
             "id": t.diagnosis.id, "text": " ".join((t.diagnosis.title,
             t.diagnosis.explanation, t.diagnosis.fix)), "fix": t.diagnosis.fix}}
        for t in r.tests if t.status.value not in ("passed", "skipped")
    ]
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Case:
    file: str
    diagnosis: str  # a catalogue id, or "none"
    also: tuple[str, ...]
    forbidden: tuple[str, ...]
    fix_has: tuple[str, ...]

    @property
    def exercise(self) -> str:
        return self.file.split("/")[0]


def load_cases() -> list[Case]:
    # strictly (grader.wire): a file named twice would be judged by its last entry alone
    data = load_yaml(MANIFEST.read_bytes(), source=str(MANIFEST))
    assert data["format_version"] == 1
    return [
        Case(
            file=name,
            diagnosis=str(entry["diagnosis"]),
            also=tuple(entry.get("also", ())),
            forbidden=tuple(entry.get("not", ())),
            fix_has=tuple(entry.get("fix_has", ())),
        )
        for name, entry in data["cases"].items()
    ]


def judge(case: Case, failed: list[dict[str, Any]]) -> tuple[str, str]:
    """("right" | "none" | "wrong", why) for one graded case (its tests that did not pass)."""
    found = [t["diagnosis"] for t in failed if t["diagnosis"] is not None]
    shown = {d["id"] for d in found}
    texts = [t["message"] for t in failed] + [d["text"] for d in found]
    for word in case.forbidden:
        if any(word in text for text in texts):
            return "wrong", f"shows {word!r}"
    if not failed:
        return "wrong", "no test failed"
    if case.diagnosis == "none":
        return ("right", "") if not shown else ("wrong", f"diagnosed {sorted(shown)}")
    stray = shown - {case.diagnosis, *case.also}
    if stray:
        return "wrong", f"diagnosed {sorted(stray)} (expected {case.diagnosis})"
    if case.diagnosis not in shown:
        return "none", "no diagnosis"
    fixes = [d["fix"] for d in found if d["id"] == case.diagnosis]
    for word in case.fix_has:
        if not any(word in fix for fix in fixes):
            return "wrong", f"the fix does not show {word!r}"
    return "right", ""


def test_the_manifest_lists_every_corpus_file_and_known_ids():
    cases = load_cases()
    listed = {c.file for c in cases}
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("exercise-*/*.py")}
    assert listed == on_disk
    ids = DiagnosisCatalog.load().ids()
    for case in cases:
        for name in (case.diagnosis, *case.also):
            assert name == "none" or name in ids, (case.file, name)
    assert len(cases) >= 60
    assert len({c.exercise for c in cases}) >= 12


@pytest.mark.slow
def test_corpus_of_realistic_mistakes():
    cases = load_cases()
    files = [case.file for case in cases]
    graded = json.loads(run_fresh(_GRADE, timeout=1500, args=(str(CORPUS), json.dumps(files))))
    verdicts: dict[str, list[str]] = {"right": [], "none": [], "wrong": []}
    for case in cases:
        verdict, why = judge(case, graded[case.file])
        verdicts[verdict].append(f"{case.file}: {why}")
    total = len(cases)
    right, none, wrong = (len(verdicts[k]) for k in ("right", "none", "wrong"))
    print(
        f"\ncorpus: {total} mistakes in {len({c.exercise for c in cases})} exercises: "
        f"{right} right diagnosis ({100 * right / total:.1f}%), {none} none, "
        f"{wrong} pointed the wrong way"
    )
    for kind in ("none", "wrong"):
        for line in verdicts[kind]:
            print(f"  {kind}: {line}")
    assert wrong == 0, verdicts["wrong"]
    assert right >= 0.9 * total, verdicts["none"]
