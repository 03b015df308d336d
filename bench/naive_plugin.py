"""The naive baseline of bench/batch.py: the hidden tests in one pytest process per submission,
importing the learner's file into the test process (as Otter-Grader and nbgrader do).

Used as `python -m pytest -p bench.naive_plugin exercises/<id>/tests.py` with NAIVE_SUBMISSION
and NAIVE_EXERCISE in the environment. It offers the same fixtures as the grader's plugin, minus
the isolation: that is the point of the comparison.
"""

from __future__ import annotations

import importlib.util
import os
import zlib
from pathlib import Path

import pytest
import torch

from grader.catalog import Catalog, project_root


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Learner:
    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)

    def call(self, name, *args, trace=False, allow_mutation=False, **kwargs):
        return getattr(self._module, name)(*args, **kwargs)

    def run(self, scenario, *args, trace=False, **kwargs):
        return scenario(self._module, *args, **kwargs)


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        cuda = torch.cuda.is_available()
        metafunc.parametrize(
            "device",
            ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not cuda, reason="no CUDA"))],
        )


@pytest.fixture(scope="module")
def exercise():
    return Catalog(project_root()).resolve(os.environ["NAIVE_EXERCISE"])


@pytest.fixture(scope="module")
def learner():
    return _Learner(_load("submission", os.environ["NAIVE_SUBMISSION"]))


@pytest.fixture(scope="module")
def reference(exercise):
    return _load("reference", str(exercise.solution_path))


@pytest.fixture
def seed(request):
    return zlib.crc32(request.node.name.encode()) & 0x7FFFFFFF


@pytest.fixture
def rng(seed):
    return torch.Generator().manual_seed(seed)


@pytest.fixture
def attach():
    return lambda key, value: None


@pytest.fixture
def learner_source():
    return Path(os.environ["NAIVE_SUBMISSION"]).read_text()
