"""Exercise 18 - Feature scaling and the BMI pipeline.

Implement the four functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-18` to check your work, `grade hint exercise-18`
when you are stuck.
"""

import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    """Body mass index: weight (kg) divided by the square of the height (m), element by element."""
    # TODO: one line of tensor arithmetic; mind what "square" means.
    raise NotImplementedError


def min_max(x: torch.Tensor) -> torch.Tensor:
    """The 1-D tensor x scaled to [0, 1]: (x - min) / (max - min).

    A constant x (max == min) gives zeros, never NaN.
    """
    # TODO: what happens to the division when max == min?
    raise NotImplementedError


def standardize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standardize each column of x (n, d): returns (z, mean, std).

    mean and std have shape (d,); std is torch.std's default. z = (x - mean) / std, except that
    a constant column (std == 0) is only centred: its z is x - mean (zeros), never NaN.
    """
    # TODO: per-column statistics reduce one of the two dimensions; which one?
    raise NotImplementedError


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    """A bool tensor: True where 18.5 <= bmi <= 24.9 (both bounds included)."""
    # TODO: combine two comparisons element by element.
    raise NotImplementedError
