"""Compiled report templates kept between commands (grader.render.template_cache).

Each case renders in fresh interpreters (the environment is made once per process), with its
own cache folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import ROOT, run_fresh

FIXTURE = ROOT / "tests" / "fixtures" / "results" / "failing.json"

_RENDER = """
import json, sys
import jinja2
compiled = []
original = jinja2.Environment.compile
def counting(self, *args, **kwargs):
    compiled.append(1)
    return original(self, *args, **kwargs)
jinja2.Environment.compile = counting
from grader.render.html import render_result_data
page = render_result_data(json.load(open(sys.argv[1])))
print(json.dumps({"page": page, "compiled": len(compiled)}))
"""


def _render(cache_home: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    return json.loads(run_fresh(_RENDER, args=(str(FIXTURE),), env=env))


def test_the_second_command_loads_the_templates_compiled(tmp_path):
    first = _render(tmp_path)
    folder = tmp_path / "torch-grader" / "templates"
    assert first["compiled"] > 0
    assert folder.stat().st_mode & 0o777 == 0o700
    entries = list(folder.iterdir())
    assert entries and all(p.stat().st_mode & 0o077 == 0 for p in entries)
    second = _render(tmp_path)
    assert second["compiled"] == 0
    assert second["page"] == first["page"]


def test_a_folder_others_can_write_to_is_never_loaded_from(tmp_path):
    reference = _render(tmp_path / "reference")
    folder = tmp_path / "shared" / "torch-grader" / "templates"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    # what another user could have left there: never read, never added to
    for name in os.listdir(tmp_path / "reference" / "torch-grader" / "templates"):
        (folder / name).write_bytes(b"planted")
    planted = sorted(folder.iterdir())
    again = _render(tmp_path / "shared")
    assert again["compiled"] == reference["compiled"]
    assert again["page"] == reference["page"]
    assert sorted(folder.iterdir()) == planted
    assert all(p.read_bytes() == b"planted" for p in planted)


def test_damaged_entries_are_compiled_again(tmp_path):
    reference = _render(tmp_path)
    folder = tmp_path / "torch-grader" / "templates"
    for entry in folder.iterdir():
        entry.write_bytes(entry.read_bytes()[:40])
    again = _render(tmp_path)
    assert again["compiled"] == reference["compiled"]
    assert again["page"] == reference["page"]
    assert _render(tmp_path)["compiled"] == 0  # and written whole again


def test_no_usable_folder_only_costs_the_compiling(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    result = _render(blocked)
    assert result["compiled"] > 0
    assert result["page"] == _render(tmp_path / "fresh")["page"]
