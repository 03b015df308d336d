"""Exercise 11: features normalised inside prepare_batch (standardised, min-max scaled, divided
by 255 or by their maximum), where only the dtype was to change, and a brightness divided by
images.max() (or each image's own maximum) where the prompt names 255, got only "values
differ". Each is now named where the answer is that replay, value for value
(`data-normalised`, `scale-from-data`); the right answer and other mistakes are not."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")

NORMALISED = {
    "standardised": lambda x: (x - x.mean(dim=0)) / x.std(dim=0),
    "standardised_biased": lambda x: (x - x.mean(dim=0)) / x.std(dim=0, unbiased=False),
    "standardised_whole": lambda x: (x - x.mean()) / x.std(),
    "min_max": lambda x: (x - x.amin(dim=0)) / (x.amax(dim=0) - x.amin(dim=0)),
    "over_255": lambda x: x / 255,
    "over_max": lambda x: x / x.max(),
    "centred": lambda x: x - x.mean(dim=0),
}
OTHER = {
    "right": lambda x: x,
    "half": lambda x: x.half().float(),
    "negated": lambda x: -x,
    "plus_one": lambda x: x + 1,
}


def _evidence(check, *args):
    try:
        check(*args)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(
    n=st.integers(2, 8),
    d=st.integers(1, 5),
    seed=st.integers(0, 2**16),
    how=st.sampled_from(sorted(NORMALISED) + sorted(OTHER)),
)
def test_normalised_features_are_named_and_nothing_else(n, d, seed, how):
    features = torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    want = features.float()
    replay = {**NORMALISED, **OTHER}[how](features.double())
    got = replay.float()
    evidence = _evidence(EX11._check_features, got, want, "the features")
    if how == "right":
        assert evidence == []
        return
    told = "normalised_not_converted" in evidence
    if how in NORMALISED and bool(torch.isfinite(replay).all()):
        # a replay that leaves the data as it is (one row centred is 0 ...) is not told
        assert told == (not torch.allclose(replay, features, rtol=1e-5, atol=1e-6))
    else:
        assert not told


IMAGES = st.tuples(st.integers(1, 4), st.integers(1, 5), st.integers(1, 5))


@given(shape=IMAGES, seed=st.integers(0, 2**16), top=st.integers(1, 255))
def test_a_brightness_over_the_data_maximum_is_named_where_it_differs(shape, seed, top):
    g = torch.Generator().manual_seed(seed)
    images = torch.randint(0, top + 1, shape, generator=g, dtype=torch.uint8)
    want = images.float().mean(dim=(1, 2)) / 255
    x = images.double()
    for got, story in (
        (x.mean(dim=(1, 2)) / x.max(), True),
        (x.mean(dim=(1, 2)) / x.amax(dim=(1, 2)), True),
        (x.mean(dim=(1, 2)) / 256, False),
        (x.mean(dim=(1, 2)) / 255, False),
    ):
        got = got.float()
        evidence = _evidence(EX11._compare_brightness, got, want, "brightness", images)
        differs = not torch.allclose(got.double(), want.double(), rtol=1e-5, atol=1e-6)
        told = "divided_by_data_max" in evidence
        # an image of zeros over its own maximum is 0 / 0, NaN: that replay too. Where the
        # maximum makes it another story's number too (1: the mean level itself; 85 for 3
        # pixels: their sum / 255), that story, checked first, is told
        if not (story and differs):
            assert not told, (got, want, evidence)
        else:
            assert told or {"not_scaled", "summed_not_averaged"} & set(evidence), evidence
            assert "wrong_pixel_scale" not in evidence


def test_the_catalogue_names_them():
    catalog = DiagnosisCatalog.load()
    tags = ("values_differ", "normalised_not_converted")
    assert match(catalog, tags, None).id == "data-normalised"
    assert match(catalog, ("values_differ", "divided_by_data_max"), None).id == "scale-from-data"
