"""An exercise's hidden tests imported as a module, for unit tests of the rules its stories
follow: a rule is proven over generated inputs without grading a file for each."""

from __future__ import annotations

import importlib.util
import types

from grader.catalog import Catalog, project_root


def hidden_tests(exercise: str) -> types.ModuleType:
    """``exercises/<exercise>/tests.py`` of the built-in course, freshly imported."""
    path = Catalog(project_root()).resolve(exercise).test_path
    name = exercise.replace("-", "_") + "_hidden_tests"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
