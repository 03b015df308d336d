"""Exercise 05 - The view/contiguous bug.

Both functions below crash on real inputs. Find out why and fix them, keeping their names and
what they return. Run `grade exercise-05` to check your work.
"""

import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    """Return the elements of x.T in row-major order, as a 1-D tensor of length A*B.

    x has shape (A, B) and may itself be a transposed or sliced view.
    """
    return x.t().view(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    """Turn a batch of images (B, C, H, W) into a sequence of pixels (B, H*W, C).

    Pixel (h, w) of image b becomes row h*W + w of result[b], holding its C channel values.
    """
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).view(B, -1, C)
