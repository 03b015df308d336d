"""The Jinja2 environment every HTML report renders with.

Templates live in ``reports/templates`` (packaged inside the wheel: :mod:`grader.resources`).
Autoescaping is on and undefined names are errors; renderers hand templates plain values only,
never markup built in Python, so nothing learner-controlled is ever marked safe. Compiled
templates are kept between commands (:mod:`grader.render.template_cache`).
"""

from __future__ import annotations

import functools
from typing import Any

from grader.i18n import REPORT, labels
from grader.resources import templates_dir
from grader.text import inert_data


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    import jinja2

    from grader.render.template_cache import cache

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=cache(),
    )


def render(template: str, view: dict[str, Any], lang: str) -> str:
    """``template`` with the view's plain values and the report labels in ``lang``. Every
    text of the view is made inert (:func:`grader.text.inert_data`): it quotes file names,
    archive members and learner output, whose control codes no report may hold."""
    lang = lang if lang in REPORT else "en"
    values = inert_data(view)
    page: str = (
        environment().get_template(template).render(v=values, t=labels(REPORT, lang), lang=lang)
    )
    return page
