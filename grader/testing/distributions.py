"""Is a sample normal? A test with power against every common look-alike, and almost never wrong
about correct code.

A Kolmogorov-Smirnov distance alone is the wrong tool for "draws from a normal distribution":
it looks at the middle of the distribution, where symmetric look-alikes with the right mean and
standard deviation (Student's t, a mixture of normals, a logistic, a sum of a few uniforms) are
closest to the normal. :func:`normal_shape` therefore measures four things of the standardised
sample, each with a limit set in standard errors of a normal sample of the same size, so the
rate of rejecting correct code does not depend on the size:

* the KS distance (the middle), at most ``3 / sqrt(n)``;
* the Anderson-Darling statistic (the tails weighted up, parameters estimated, Stephens'
  finite-sample correction), at most 4.0;
* the skewness (asymmetry), at most 8 standard errors, ``8 * sqrt(6 / n)``;
* the excess kurtosis (tails heavier or lighter than the normal's), at most 8 standard errors,
  ``8 * sqrt(24 / n)``.

Rate of rejecting a correct (normal) sample: below 1e-7 for a sample of 10,000 values or more
(KS past ``3 / sqrt(n)``: below ``2 exp(-18)``, 3e-8; Anderson-Darling past 4.0: about 6e-10 by
D'Agostino and Stephens' formula; skewness or kurtosis past 8 standard errors: about 1e-15 each,
asymptotically normal). tests/test_distributions.py draws 200 seeds of correct samples and sees
no rejection, and rejects each look-alike of the same mean and standard deviation on every one
of its seeds: uniform, triangular, Laplace, logistic, Student's t with up to 40 degrees of
freedom, sums of up to 8 uniforms, and scale and location mixtures of two normals.

Power grows with the sample: with 262,144 values (512 x 512) the kurtosis limit is 0.077, the
skewness limit 0.038 and the KS limit 0.0059. Everything is deterministic for a given sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from grader.i18n import Text

KS_SCALE = 3.0  # KS limit: KS_SCALE / sqrt(n)
AD_LIMIT = 4.0
MOMENT_SE = 8.0  # skewness and kurtosis limits, in standard errors of a normal sample
MIN_SIZE = 10_000  # below this the limits above do not hold their stated rates


@dataclass(frozen=True)
class Departure:
    """One way a sample is not normal, for a learner-facing message."""

    statistic: str  # "kurtosis", "skewness", "anderson_darling", "ks"
    value: float
    limit: float
    message: Text  # what it means, in words


@dataclass(frozen=True)
class NormalShape:
    """The shape statistics of a sample, standardised by its own mean and standard deviation."""

    n: int
    ks: float
    ks_at: float  # where the KS gap is largest, in standard deviations
    anderson_darling: float
    skewness: float
    kurtosis: float  # excess kurtosis: 0 for the normal

    @property
    def limits(self) -> dict[str, float]:
        n = max(self.n, 1)
        return {
            "kurtosis": MOMENT_SE * math.sqrt(24 / n),
            "skewness": MOMENT_SE * math.sqrt(6 / n),
            "anderson_darling": AD_LIMIT,
            "ks": KS_SCALE / math.sqrt(n),
        }

    def departures(self) -> list[Departure]:
        """Every way the sample departs from the normal, the most telling first (empty: it
        is as normal as a normal sample of its size)."""
        limits = self.limits
        found = []
        if abs(self.kurtosis) > limits["kurtosis"]:
            heavy = self.kurtosis > 0
            found.append(
                Departure(
                    "kurtosis",
                    self.kurtosis,
                    limits["kurtosis"],
                    Text(
                        f"its tails are {'heavier' if heavy else 'lighter'} than a normal "
                        f"distribution's (excess kurtosis {self.kurtosis:+.3f}; a normal sample "
                        f"of this size stays within ±{limits['kurtosis']:.3f})",
                        f"它的尾部比正态分布{'更重' if heavy else '更轻'}（超额峰度 "
                        f"{self.kurtosis:+.3f}；这么大的正态样本不会超出 ±{limits['kurtosis']:.3f}）",
                    ),
                )
            )
        if abs(self.skewness) > limits["skewness"]:
            found.append(
                Departure(
                    "skewness",
                    self.skewness,
                    limits["skewness"],
                    Text(
                        f"it is lopsided (skewness {self.skewness:+.3f}; a normal sample of this "
                        f"size stays within ±{limits['skewness']:.3f})",
                        f"它不对称（偏度 {self.skewness:+.3f}；这么大的正态样本不会超出 "
                        f"±{limits['skewness']:.3f}）",
                    ),
                )
            )
        if self.ks > limits["ks"]:
            found.append(
                Departure(
                    "ks",
                    self.ks,
                    limits["ks"],
                    Text(
                        f"the share of its standardised values below {self.ks_at:.2f} differs "
                        f"from the normal distribution's by {self.ks:.4f} (a normal sample of "
                        f"this size stays within {limits['ks']:.4f})",
                        f"标准化后小于 {self.ks_at:.2f} 的比例与正态分布相差 {self.ks:.4f}"
                        f"（这么大的正态样本不会超过 {limits['ks']:.4f}）",
                    ),
                )
            )
        if self.anderson_darling > limits["anderson_darling"]:
            found.append(
                Departure(
                    "anderson_darling",
                    self.anderson_darling,
                    limits["anderson_darling"],
                    Text(
                        "its values are spread over the range unlike a normal sample's "
                        f"(Anderson-Darling statistic {self.anderson_darling:.2f}; a normal "
                        f"sample stays below {AD_LIMIT:g})",
                        "它的取值分布与正态样本不同（Anderson-Darling 统计量 "
                        f"{self.anderson_darling:.2f}；正态样本不会超过 {AD_LIMIT:g}）",
                    ),
                )
            )
        return found


def normal_shape(values: torch.Tensor) -> NormalShape:
    """The shape statistics of ``values`` (any shape, read as float64 on the CPU). A sample
    with no spread, or with values that are not finite, departs on every statistic."""
    x = values.detach().to("cpu", torch.float64).flatten()
    n = x.numel()
    std = float(x.std()) if n > 1 else 0.0
    if n < 2 or not math.isfinite(std) or std == 0.0 or not bool(torch.isfinite(x).all()):
        inf = math.inf
        return NormalShape(n, 1.0, 0.0, inf, inf, inf)
    # NumPy's sort of a float64 vector is about 15x torch's single-threaded one here (a
    # 512 x 512 sample: 1.7 ms against 27 ms, the statistic's whole cost); a sorted sequence is
    # the same whichever sort made it.
    z = torch.from_numpy(np.sort(((x - x.mean()) / std).numpy()))
    cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
    steps = torch.arange(0, n + 1, dtype=torch.float64) / n
    gaps = torch.maximum(steps[1:] - cdf, cdf - steps[:-1])
    i = int(gaps.argmax())
    # Anderson-Darling with mean and variance estimated (Stephens' case 3 correction)
    low = torch.log(cdf.clamp_min(1e-300))
    high = torch.log((1 - cdf.flip(0)).clamp_min(1e-300))
    weights = torch.arange(1, 2 * n, 2, dtype=torch.float64)
    a2 = -n - float((weights * (low + high)).sum()) / n
    a2 *= 1 + 0.75 / n + 2.25 / n**2
    centred = x - x.mean()
    m2 = float((centred**2).mean())
    skewness = float((centred**3).mean()) / m2**1.5
    kurtosis = float((centred**4).mean()) / m2**2 - 3.0
    return NormalShape(n, float(gaps[i]), float(z[i]), a2, skewness, kurtosis)
