"""The normality test behind exercise-01's distribution test (grader.testing.distributions).

Two promises, each proven over many seeds: correct samples (torch.randn, torch.normal, normal_)
are almost never rejected (its stated rate is below 1e-7), and every common look-alike with the
same mean and standard deviation is rejected on every seed.
"""

from __future__ import annotations

import math

import pytest
import torch

from grader.testing.distributions import normal_shape

SIZE = (512, 512)  # what exercise-01 draws


def _rand(gen: torch.Generator) -> torch.Tensor:
    return torch.rand(SIZE, generator=gen, dtype=torch.float64)


def _t(df: int):
    def draw(gen: torch.Generator) -> torch.Tensor:
        # Student's t: a normal over the root of a chi-squared of df degrees of freedom / df
        # (Chi2 takes no generator: the global one, seeded from this one, in a forked state)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(torch.randint(2**31, (1,), generator=gen)))
            chi2 = torch.distributions.Chi2(torch.tensor(float(df))).sample(SIZE).double()
        return torch.randn(SIZE, generator=gen, dtype=torch.float64) / torch.sqrt(chi2 / df)

    return draw


def _sum_of_uniforms(k: int):
    return lambda gen: sum(_rand(gen) for _ in range(k))


def _scale_mixture(ratio: float):
    return lambda gen: (
        torch.randn(SIZE, generator=gen, dtype=torch.float64)
        * torch.where(_rand(gen) < 0.5, 1.0, ratio)
    )


def _location_mixture(offset: float):
    return lambda gen: (
        torch.randn(SIZE, generator=gen, dtype=torch.float64)
        + torch.where(_rand(gen) < 0.5, -offset, offset)
    )


LOOK_ALIKES = {
    "uniform": _rand,
    "triangular": _sum_of_uniforms(2),
    "laplace": lambda gen: -torch.log(_rand(gen).clamp_min(1e-300)) * torch.sign(_rand(gen) - 0.5),
    "logistic": lambda gen: (lambda u: torch.log(u / (1 - u)))(_rand(gen).clamp(1e-12, 1 - 1e-12)),
    "student_t_5": _t(5),
    "student_t_20": _t(20),
    "student_t_40": _t(40),
    "sum_of_4_uniforms": _sum_of_uniforms(4),
    "sum_of_8_uniforms": _sum_of_uniforms(8),
    "scale_mixture_1_2": _scale_mixture(2.0),
    "scale_mixture_1_1.3": _scale_mixture(1.3),
    "location_mixture_0.7": _location_mixture(0.7),
    "location_mixture_1": _location_mixture(1.0),
}
CORRECT = {
    "randn": lambda gen: torch.randn(SIZE, generator=gen) * 0.01,
    "normal": lambda gen: torch.normal(0.0, 0.01, SIZE, generator=gen),
    "normal_": lambda gen: torch.empty(SIZE).normal_(0, 0.01, generator=gen),
    "randn_transposed": lambda gen: torch.randn(SIZE[::-1], generator=gen).T * 0.01,
}


def _rescaled(values: torch.Tensor) -> torch.Tensor:
    """Mean 0 and standard deviation 0.01, as init_weights must give: only the shape differs."""
    values = values.double()
    return ((values - values.mean()) / values.std() * 0.01).float()


def _rejected(draw, seed: int) -> bool:
    return bool(normal_shape(_rescaled(draw(torch.Generator().manual_seed(seed)))).departures())


@pytest.mark.parametrize("name", sorted(LOOK_ALIKES))
def test_every_look_alike_is_rejected_on_every_seed(name):
    draw = LOOK_ALIKES[name]
    kept = [seed for seed in range(2) if not _rejected(draw, seed)]
    assert kept == [], f"{name} passed as normal for seeds {kept}"


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_samples_are_accepted(name):
    draw = CORRECT[name]
    rejected = [seed for seed in range(3) if _rejected(draw, seed)]
    assert rejected == []


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 200 samples of 262,144 values: seconds alone, minutes on a busy CI
def test_correct_samples_are_accepted_on_200_seeds():
    """The stated rate of rejecting correct code (below 1e-7): no rejection in 200 seeds, and
    no statistic comes near its limit (each stays under half of it)."""
    worst: dict[str, float] = {}
    for seed in range(200):
        shape = normal_shape(torch.randn(SIZE, generator=torch.Generator().manual_seed(seed)))
        assert not shape.departures(), (seed, shape)
        for name, limit in shape.limits.items():
            worst[name] = max(worst.get(name, 0.0), abs(getattr(shape, name)) / limit)
    assert max(worst.values()) < 0.5, worst


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", sorted(LOOK_ALIKES))
def test_every_look_alike_is_rejected_on_30_seeds(name):
    draw = LOOK_ALIKES[name]
    kept = [seed for seed in range(100, 130) if not _rejected(draw, seed)]
    assert kept == [], f"{name} passed as normal for seeds {kept}"


def test_the_same_sample_gets_the_same_verdict():
    values = torch.randn(SIZE, generator=torch.Generator().manual_seed(3))
    assert normal_shape(values) == normal_shape(values.clone())


@pytest.mark.parametrize(
    "values",
    [
        torch.zeros(SIZE),
        torch.full(SIZE, math.nan),
        torch.tensor([1.0]),
        torch.tensor([]),
        torch.randn(SIZE).masked_fill(torch.rand(SIZE) < 1e-4, math.inf),
    ],
    ids=["constant", "nan", "one", "empty", "infinite"],
)
def test_a_degenerate_sample_is_never_normal(values):
    assert normal_shape(values).departures()
