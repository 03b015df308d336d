"""Exercise 09 - a correct alternative: A batch filled image by image, column_stack, and the heads as stacked chunks."""

import torch as T


def stack_images(images: list[T.Tensor]) -> T.Tensor:
    out = T.empty((len(images), *images[0].shape), dtype=images[0].dtype, device=images[0].device)
    for i, im in enumerate(images):
        out[i] = im
    return out


def concat_features(a: T.Tensor, b: T.Tensor) -> T.Tensor:
    return T.column_stack([a, b])


def split_heads(x: T.Tensor, heads: int) -> T.Tensor:
    return T.stack(x.chunk(heads, dim=-1), dim=1)
