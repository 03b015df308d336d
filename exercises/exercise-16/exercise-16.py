"""Exercise 16 - Manual gradient descent.

Implement the function below (it currently raises NotImplementedError), keeping its name and
arguments. Run `grade exercise-16` to check your work, `grade hint exercise-16` when you are stuck.
"""

import torch


def fit_linear(
    X: torch.Tensor, y: torch.Tensor, lr: float, steps: int
) -> tuple[torch.Tensor, torch.Tensor, list[float]]:
    """Fit y ≈ X @ w + b by gradient descent on the mean squared error, written by hand.

    X has shape (n, d) and y shape (n,). w (shape (d,)) and b (shape ()) start at zero. Each of
    the `steps` steps computes the loss, calls backward(), updates w and b in place under
    torch.no_grad() and zeroes their gradients. Returns the learned w and b (X's dtype and
    device, not requiring grad) and the list of losses, each a Python float measured before its
    step. No torch.optim and no nn.Linear.
    """
    # TODO: create w and b with requires_grad=True, then loop: loss, backward, update, zero.
    raise NotImplementedError
