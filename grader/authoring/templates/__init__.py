"""The templates of ``grade new --template NAME``, one module each: a complete exercise in one
of the test patterns exercises/README.md documents.

    basic      scale(x, factor): compare with the reference; judge the dtype alone
    forbidden  relu(x) without relu or clamp: a forbidden group, in-place forms included
    opcount    row_norms(x) without Python loops: op counts over named sizes, the static backstop
    property   normalize_rows(x): a hypothesis property beside the examples
    meta       add_positions(x): the meta device stands in for a GPU on any machine
    mistakes   standardize(x): replay the classic mistakes and name the one the learner made

Each module holds ``DESCRIPTION`` and ``FILES``: course-relative paths to file contents, with
``{id}`` and ``{slug}`` standing for the new exercise's id and slug.
"""

from __future__ import annotations

from types import ModuleType

from grader.authoring.templates import basic, forbidden, meta, mistakes, opcount, properties

TEMPLATES: dict[str, ModuleType] = {
    "basic": basic,
    "forbidden": forbidden,
    "opcount": opcount,
    "property": properties,
    "meta": meta,
    "mistakes": mistakes,
}
