"""``grade new ID [--template NAME]``: scaffold an exercise that loads and passes
``grade validate`` as it is.

Every template is a tiny but complete exercise (hidden tests, three mutants or more, two
alternatives, two hints, the requirements table) written in one of the documented test patterns
(:mod:`grader.authoring.templates`), so an author starts from something that works and changes it
step by step, re-running ``grade validate ID`` as they go.
"""

from __future__ import annotations

from pathlib import Path

from grader.authoring.templates import TEMPLATES
from grader.catalog import Catalog
from grader.errors import UsageError
from grader.spec import ID_RE


def scaffold(
    catalog: Catalog, exercise_id: str, slug: str | None = None, template: str = "basic"
) -> list[Path]:
    """Write the scaffold; refuses to overwrite anything. Returns the files written."""
    if not ID_RE.match(exercise_id):
        raise UsageError(
            f"'{exercise_id}' is not an exercise id",
            hint="Use the form exercise-NN, e.g. exercise-21.",
        )
    if template not in TEMPLATES:
        raise UsageError(
            f"no template '{template}'", hint=f"Use one of: {', '.join(sorted(TEMPLATES))}."
        )
    folder = catalog.exercises_dir / exercise_id
    solution_dir = catalog.solutions_dir / exercise_id
    for path in (folder, solution_dir):
        if path.exists():
            raise UsageError(
                f"{path} already exists", hint="Choose another id, or edit the existing exercise."
            )
    slug = slug or f"new-{exercise_id}"
    files = {}
    for name, text in TEMPLATES[template].files().items():
        target = catalog.root / name.replace("{id}", exercise_id)
        files[target] = text.replace("{id}", exercise_id).replace("{slug}", slug)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(files)
