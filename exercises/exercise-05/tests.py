"""Hidden tests of exercise-05: view/contiguous.

Inputs come in three memory layouts (contiguous, transposed, sliced), because the bug only shows
on some of them; every result is compared with the reference on the same input.
"""

import torch

from grader.testing import assert_close

MATRICES = [(3, 4), (1, 5), (5, 1), (2, 2), (6, 7)]
IMAGES = [(2, 3, 4, 5), (1, 1, 3, 3), (3, 2, 1, 6), (2, 4, 6, 2)]


def _layouts(shape, rng, device):
    """The same kind of matrix as a contiguous tensor, a transposed view and a sliced view."""
    a, b = shape
    yield "contiguous", torch.randn(a, b, generator=rng).to(device)
    yield "transposed view", torch.randn(b, a, generator=rng).to(device).t()
    yield "sliced view", torch.randn(a, 2 * b, generator=rng).to(device)[:, ::2]


def test_flatten_transposed_values(learner, reference, device, rng):
    for a, b in MATRICES:
        x = torch.randn(a, b, generator=rng).to(device)
        assert_close(
            learner.flatten_transposed(x),
            reference.flatten_transposed(x),
            f"flatten_transposed(x) for x of shape ({a}, {b})",
            rtol=0,
            atol=0,
        )
    x = torch.arange(12).reshape(3, 4).to(device)
    assert_close(
        learner.flatten_transposed(x),
        reference.flatten_transposed(x),
        "flatten_transposed(x) for an int64 x of shape (3, 4)",
    )


def test_flatten_transposed_any_layout(learner, reference, device, rng):
    for shape in MATRICES:
        for layout, x in _layouts(shape, rng, device):
            assert_close(
                learner.flatten_transposed(x),
                reference.flatten_transposed(x),
                f"flatten_transposed(x) for x a {layout} of shape {shape}",
                rtol=0,
                atol=0,
            )


def test_to_sequence_values(learner, reference, device, rng):
    for shape in IMAGES:
        images = torch.randn(*shape, generator=rng).to(device)
        assert_close(
            learner.to_sequence(images),
            reference.to_sequence(images),
            f"to_sequence(images) for images of shape {shape}",
            rtol=0,
            atol=0,
        )


def test_to_sequence_pixel_order(learner, reference, device):
    # Every value names its own position (c*1000 + h*10 + w), so a wrong order is easy to read.
    b, c, h, w = 1, 3, 2, 4
    hh, ww = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    images = (
        torch.stack([cc * 1000 + hh * 10 + ww for cc in range(c)]).unsqueeze(0).float().to(device)
    )
    assert_close(
        learner.to_sequence(images),
        reference.to_sequence(images),
        f"to_sequence(images) for images of shape {(b, c, h, w)} whose values are "
        "channel*1000 + row*10 + column",
        rtol=0,
        atol=0,
    )


def test_to_sequence_any_layout(learner, reference, device, rng):
    for b, c, h, w in IMAGES:
        channels_last = torch.randn(b, h, w, c, generator=rng).to(device).permute(0, 3, 1, 2)
        cropped = torch.randn(b, c, h + 2, w + 3, generator=rng).to(device)[:, :, 1:-1, 2:-1]
        for layout, images in (("channels-last view", channels_last), ("cropped view", cropped)):
            assert_close(
                learner.to_sequence(images),
                reference.to_sequence(images),
                f"to_sequence(images) for images a {layout} of shape {(b, c, h, w)}",
                rtol=0,
                atol=0,
            )
