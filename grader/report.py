"""HTML reports: pure functions from result JSON to one self-contained HTML file.

Templates live in ``reports/templates`` (Jinja2, autoescaped). The renderer hands them plain values
only; nothing learner-controlled is ever marked safe.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from grader.catalog import install_root
from grader.results import Result


@functools.lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def templates_dir() -> Path:
    return install_root() / "reports" / "templates"


def render_result(result: Result) -> str:
    template = _environment().get_template("result.html.j2")
    return template.render(r=result.to_dict(), lang=result.lang)
