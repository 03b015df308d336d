"""The whole curriculum through `grade validate`, as CI runs it: every exercise's spec and files,
its reference and alternatives at full marks, its starter and every mutant failing with the
declared diagnosis. The JUnit report names each check."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.catalog import Catalog, project_root
from tests.conftest import run_cli


def test_grade_validate_passes_on_every_exercise(tmp_path):
    junit = tmp_path / "validate.xml"
    proc = run_cli("validate", "--junit", str(junit), timeout=900)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    specs = Catalog(project_root()).all()
    assert len(specs) == 20
    suites = {s.get("name"): s for s in ET.parse(junit).getroot().iter("testsuite")}
    assert set(suites) == {s.id for s in specs}
    for spec in specs:
        suite = suites[spec.id]
        assert suite.get("failures") == "0", spec.id
        names = [case.get("name") for case in suite.iter("testcase")]
        assert {"spec", "files", "curriculum", "reference", "starter"} <= set(names)
        assert sum(n.startswith("mutant ") for n in names) == len(spec.mutants) >= 3
        assert sum(n.startswith("alternative ") for n in names) == len(spec.alternatives) >= 2
        assert f"✓ {spec.id}: reference" in proc.stdout
