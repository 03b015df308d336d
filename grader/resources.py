"""Where the grader's own data lives: the built-in course and the report templates.

In a checkout (and an editable install) they are the repository's top-level ``exercises/``,
``solutions/`` and ``reports/``. A built wheel carries copies of them inside the package, under
``grader/_data/`` (the build puts them there, see ``setup.py``), so an installed grader needs
no checkout.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_DATA = PACKAGE / "_data"


def data_root() -> Path:
    """The folder holding ``exercises/``, ``solutions/`` and ``reports/``."""
    return _DATA if _DATA.is_dir() else PACKAGE.parent


def builtin_course() -> Path:
    """The course that ships with the grader (the twenty exercises)."""
    return data_root()


def templates_dir() -> Path:
    return data_root() / "reports" / "templates"
