"""Static looks at learner source: forbidden APIs with aliases, Python loops (the compatibility
names of ``grader.testing.source``; ``tests/test_analysis*.py`` test the analysis itself)."""

from __future__ import annotations

import pytest

from grader.testing.source import Unanalysable, forbidden_uses, loops_in, matches

SOURCE = """
import torch
import torch.nn.functional as F
from torch import optim, nn
from torch.nn import Linear as L

def softmax_rows(x):
    a = torch.softmax(x, 1)
    b = x.softmax(dim=1)
    c = F.softmax(x, -1)
    return [v for v in (a, b, c)]

def helper(x):
    return torch.nn.functional.softmax(x, 0)

def other(x):
    return torch.softmax(x, 0)

def softmax(x):                 # the learner's own function of that name is fine
    return x

def fit(model):
    opt = optim.SGD(model.parameters(), lr=0.1)
    return L(3, 1), nn.Linear(2, 2), softmax(1)
"""
GRADED = ("softmax_rows", "other", "fit")


def names(uses):
    return sorted({(u.name, u.line) for u in uses})


def test_every_spelling_of_a_bare_name():
    hits = names(forbidden_uses(SOURCE, ["softmax"], ("softmax_rows",), GRADED))
    assert ("torch.softmax", 8) in hits
    assert ("x.softmax", 9) in hits
    assert ("torch.nn.functional.softmax", 10) in hits
    assert ("torch.nn.functional.softmax", 14) in hits  # a helper counts too
    assert all(line != 17 for _, line in hits)  # another graded function does not
    assert all(line != 24 for _, line in hits)  # the learner's own softmax() does not


def test_dotted_rules_and_aliases():
    hits = names(forbidden_uses(SOURCE, ["torch.optim", "nn.Linear"], ("fit",), GRADED))
    assert ("torch.optim.SGD", 23) in hits
    assert ("torch.nn.Linear", 24) in hits
    assert ("torch.nn.Linear", 5) in hits  # the import itself


def test_matches():
    assert matches("torch.optim.SGD", "torch.optim")
    assert matches("torch.nn.Linear", "nn.Linear")
    assert not matches("torch.nn.LinearX", "nn.Linear")
    assert matches("x.softmax", "softmax")
    assert not matches("torch.log_softmax", "softmax")


def test_loops():
    assert loops_in(SOURCE, "softmax_rows") == [11]
    assert loops_in(SOURCE, "other") == []


def test_a_file_that_cannot_be_parsed_fails_closed():
    # The old helpers answered "no loops" here, so the backstop passed a broken file.
    with pytest.raises(Unanalysable):
        loops_in("def f(:", "f")
    with pytest.raises(Unanalysable):
        forbidden_uses("def f(:", ["softmax"], ("f",))
