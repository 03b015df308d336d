"""The optimizer a learner's training loop steps, named when its curve differs: another torch
optimizer, SGD with settings that change its steps, or SGD stepping with a fixed lr instead of
the one it was called with (exercises 14 and 17); an optimizer of its own stepped where one was
handed in (exercise 20).

What the learner's process reports is outside data: ``optimizer_story`` never fails on it and
names nothing it cannot read. ``optimizers_stepped`` lists only optimizers that took a step, as
they were at the step. Each named mistake gets its diagnosis through the engine, and plain SGD
with the right lr gets none.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.training import optimizer_story, own_optimizer_story
from tests.conftest import run_fresh
from tests.test_corpus import _GRADE, CORPUS

PLAIN = {
    "lr": 0.1,
    "momentum": 0,
    "dampening": 0,
    "weight_decay": 0,
    "nesterov": False,
    "maximize": False,
    "foreach": None,
    "differentiable": False,
    "fused": None,
}
SGD = "torch.optim.sgd.SGD"
OTHERS = ["torch.optim.adam.Adam", "torch.optim.adamw.AdamW", "torch.optim.rmsprop.RMSprop"]
OWN = "exercise_17.MyOptimizer"  # a learner's own class: its step may do anything
# a setting that changes SGD's steps, and the value that does
CHANGES = {
    "momentum": 0.5,
    "weight_decay": 0.01,
    "nesterov": True,
    "maximize": True,
}


# -- outside data -------------------------------------------------------------------------------

hostile = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(made=hostile, lr=st.floats(0.001, 1.0))
def test_anything_the_learners_process_reports_is_read_without_failing(made, lr):
    for story in (optimizer_story(made, lr), own_optimizer_story(made)):
        assert story is None or (
            len(story) == 3 and all(isinstance(part, str) and part for part in story)
        )


def test_a_malformed_entry_names_nothing():
    assert optimizer_story([["torch.optim.adam.Adam"]], 0.1) is None
    assert optimizer_story([[SGD, {**PLAIN, "momentum": 0.9}, False], "x"], 0.1) is None
    assert optimizer_story([["torch.optim.adam.Adam", {}, "no"]], 0.1) is None
    assert optimizer_story({"made": []}, 0.1) is None
    assert own_optimizer_story([[SGD, PLAIN, False], [SGD, PLAIN]]) is None


# -- the rule, over generated optimizers ------------------------------------------------------

entry = st.one_of(
    st.tuples(st.just("plain"), st.just(SGD), st.just({})),
    st.tuples(st.just("other"), st.sampled_from(OTHERS), st.just({})),
    st.tuples(st.just("own"), st.just(OWN), st.just({})),
    st.tuples(
        st.just("setting"),
        st.just(SGD),
        st.dictionaries(st.sampled_from(sorted(CHANGES)), st.just(None), min_size=1),
    ),
    st.tuples(st.just("lr"), st.just(SGD), st.just({"lr": 0.01})),
    # dampening without momentum changes nothing
    st.tuples(st.just("plain"), st.just(SGD), st.just({"dampening": 0.5})),
)


def built(kind: str, name: str, change: dict, handed: bool = False) -> list:
    values = dict(PLAIN)
    if kind == "setting":
        values.update({key: CHANGES[key] for key in change})
    else:
        values.update(change)
    return [name, values, handed]


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(entry, max_size=5))
def test_the_story_names_the_first_cause_the_entries_hold(entries):
    made = [built(*e) for e in entries]
    story = optimizer_story(made, 0.1)
    kinds = {kind for kind, *_ in entries}
    if "other" in kinds:
        assert story is not None and story[0] == "optimizer_not_plain_sgd"
        first = next(name for kind, name, _ in entries if kind == "other")
        assert f"torch.optim.{first.rsplit('.', 1)[1]}," in story[1]
    elif "setting" in kinds:
        assert story is not None and story[0] == "optimizer_not_plain_sgd"
        changed = next(change for kind, _, change in entries if kind == "setting")
        assert all(f"{key}=" in story[1] for key in changed), story
    elif kinds - {"own"} == {"lr"}:  # every SGD step used one other lr: a fixed number
        assert story is not None and story[0] == "lr_not_used"
        assert "lr=0.01" in story[1] and "lr=0.1" in story[1]
    else:  # plain SGD only, a learner's own class, or an lr that also met the asked one
        assert story is None, (entries, story)


def test_the_lr_asked_for_is_plain_sgd_whatever_its_spelling():
    assert optimizer_story([[SGD, {**PLAIN, "lr": 1}, False]], 1.0) is None
    plain_zeros = {**PLAIN, "momentum": 0.0, "weight_decay": 0.0}
    assert optimizer_story([[SGD, plain_zeros, False]], 0.1) is None
    story = optimizer_story([[SGD, {**PLAIN, "lr": 0.05}, False]], 0.1)
    assert story is not None and story[0] == "lr_not_used"


@settings(max_examples=200, deadline=None)
@given(entries=st.lists(st.tuples(entry, st.booleans()), max_size=5))
def test_an_optimizer_of_its_own_is_named_exactly_when_one_stepped(entries):
    """Exercise 20 hands train_step its optimizer: whatever optimizers stepped, the story is
    told exactly when one of them was not handed in, and says "twice" exactly when one handed
    in stepped as well."""
    made = [built(*e, handed) for e, handed in entries]
    story = own_optimizer_story(made)
    own = [e for e, handed in entries if not handed]
    if not own:
        assert story is None
        return
    assert story is not None and story[0] == "own_optimizer"
    module, _, name = own[0][1].rpartition(".")
    shown = f"torch.optim.{name}" if module.startswith("torch.optim") else name
    assert f"itself, {shown}(lr=" in story[1]
    assert ("twice" in story[1]) == any(handed for _, handed in entries)


# -- what the learner's run stepped -----------------------------------------------------------

_STEPPED = """
import json, types
import torch
from torch import nn
from grader.testing.training import optimizers_stepped
from torch.optim.optimizer import _global_optimizer_pre_hooks

def run(module, how):
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    return module.train(model, torch.randn(8, 2), torch.randn(8, 1), how)

def train(model, X, y, how, given=None):
    spare = torch.optim.Adam(model.parameters(), lr=0.1)  # made, never stepped
    optimizer = given or torch.optim.SGD(model.parameters(), lr=0.1)
    halve = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(3):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(X), y).backward()
        optimizer.step()
        if how == "scheduled":
            halve.step()
        if how == "raises" and epoch == 1:
            raise ValueError("stop")

def handed(module, how):
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return module.train(model, torch.randn(8, 2), torch.randn(8, 1), how, optimizer)

module = types.SimpleNamespace(train=train)
out = {how: optimizers_stepped(module, run, how) for how in ("fixed", "scheduled", "raises")}
out["handed"] = optimizers_stepped(module, handed, "fixed")
out["hooks_left"] = len(_global_optimizer_pre_hooks)
print(json.dumps(out))
"""


def test_only_optimizers_that_stepped_are_listed_as_they_were_at_each_step():
    found = json.loads(run_fresh(_STEPPED))
    assert [(name, handed) for name, _, handed in found["fixed"]] == [(SGD, False)]
    assert found["fixed"][0][1]["lr"] == 0.1
    assert [settings["lr"] for _, settings, _ in found["scheduled"]] == [0.1, 0.05, 0.025]
    assert [(name, handed) for name, _, handed in found["handed"]] == [(SGD, True)]
    assert own_optimizer_story(found["handed"]) is None
    assert own_optimizer_story(found["fixed"])[0] == "own_optimizer"
    assert found["raises"] == found["fixed"]  # what stepped before the learner's exception
    assert found["hooks_left"] == 0
    # a scheduler's lr starts at the asked one: no "fixed number" is told of it
    assert optimizer_story(found["scheduled"], 0.1) is None
    story = optimizer_story(found["fixed"], 0.05)
    assert story is not None and story[0] == "lr_not_used" and "steps with lr=0.1" in story[1]


# -- through the engine ---------------------------------------------------------------------------

NAMED = {
    "exercise-14/rmsprop.py": "optimizer-not-plain-sgd",
    "exercise-14/fixed_lr.py": "lr-not-used",
    "exercise-17/momentum_half.py": "optimizer-not-plain-sgd",
    "exercise-17/adamw.py": "optimizer-not-plain-sgd",
    "exercise-17/weight_decay.py": "optimizer-not-plain-sgd",
    "exercise-17/fixed_lr.py": "lr-not-used",
    "exercise-20/own_sgd.py": "own-optimizer",
    "exercise-20/own_adam.py": "own-optimizer",
}


@pytest.mark.slow
def test_each_optimizer_mistake_gets_its_diagnosis_on_every_failing_training_test():
    graded = json.loads(run_fresh(_GRADE, args=(str(CORPUS), json.dumps(sorted(NAMED)))))
    for file, diagnosis in NAMED.items():
        failed = graded[file]
        assert failed, file
        shown = {t["diagnosis"]["id"] for t in failed if t["diagnosis"] is not None}
        assert shown == {diagnosis}, (file, failed)
