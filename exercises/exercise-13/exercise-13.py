"""Exercise 13 - Autograd basics.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-13` to check your work, `grade hint exercise-13` when
you are stuck.
"""

import torch


def derivative(f, x: float) -> float:
    """df/dx at the number x, computed by autograd, as a Python float.

    `f` takes a 0-dimensional tensor and returns a 0-dimensional tensor; for
    f(x) = x**2 + 2*x + 1, derivative(f, 3.0) is 8.0. `x` may also be an int.
    """
    # TODO: make x a floating-point tensor that requires grad, call f, then backward().
    raise NotImplementedError


def gradients(f, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The gradient of the scalar f(*xs) with respect to each tensor in xs, as a tuple.

    Each gradient has the shape, dtype and device of its input (zeros for an input that f does
    not use). Calling it twice gives the same answer, and the inputs' requires_grad flags and
    .grad are left exactly as they were.
    """
    # TODO: do not turn on requires_grad on the caller's tensors, and do not let backward()
    # accumulate into their .grad.
    raise NotImplementedError
