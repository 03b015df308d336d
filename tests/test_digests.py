"""The content digests a batch's cache keys and a cluster's worker check are made of come from
one module (grader.digests), so that the two cannot disagree about what the grader's code is."""

from __future__ import annotations

import ast

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.cluster.fingerprint import fingerprint
from grader.digests import code_digest, digest
from grader.lms.cache import engine_fingerprint
from grader.version import __version__
from tests.conftest import ROOT


def test_the_cache_and_the_cluster_name_the_same_code():
    assert fingerprint([])["code"] == code_digest()
    assert engine_fingerprint() == digest(__version__, str(torch.__version__), code_digest())


def test_only_one_module_digests_the_grader_s_files():
    # every walk over the package's own files by content is in grader/digests.py
    walkers = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "grader").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "PACKAGE.rglob"
    )
    assert walkers == ["grader/digests.py"]


@given(st.lists(st.binary(max_size=8), max_size=4), st.lists(st.binary(max_size=8), max_size=4))
def test_different_lists_of_parts_never_share_a_digest(a, b):
    # each part is length-prefixed: ["ab", ""] and ["a", "b"] differ
    assert (digest(*a) == digest(*b)) == (a == b)
