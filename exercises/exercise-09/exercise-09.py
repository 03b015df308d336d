"""Exercise 09 - Joining and splitting.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-09` to check your work, `grade hint exercise-09`
when you are stuck.
"""

import torch


def stack_images(images: list[torch.Tensor]) -> torch.Tensor:
    """Turn a list of B images, each of shape (C, H, W), into one batch of shape (B, C, H, W)."""
    # TODO: cat joins along an existing dimension; which function adds a new one?
    raise NotImplementedError


def concat_features(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Join the features of a (n, p) and b (n, q) side by side: shape (n, p + q), a's first."""
    # TODO: along which dim do the features lie?
    raise NotImplementedError


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """Split x (B, T, heads * D) into heads: shape (B, heads, T, D).

    Feature j of head h is x[..., h * D + j]: result[b, h, t, j] == x[b, t, h * D + j].
    """
    # TODO: split the last dim first, then move the heads in front of T.
    raise NotImplementedError
