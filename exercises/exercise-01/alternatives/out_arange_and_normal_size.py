"""Exercise 01 - a correct alternative: Tensors made with an out= argument, torch.as_tensor and torch.normal with size=."""

import torch

print("loading")


def make_grid(rows, cols, device="cpu"):
    out = torch.empty(0, dtype=torch.float32, device=device)
    torch.arange(0, rows * cols, 1, out=out)
    return out.view(rows, cols)


def make_scalar(value):
    return torch.as_tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    return torch.normal(0.0, 0.01, size=(fan_in, fan_out), generator=generator)


if __name__ == "__main__":
    print(make_grid(2, 3))
