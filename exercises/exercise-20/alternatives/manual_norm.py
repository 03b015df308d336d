import torch


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    with torch.no_grad():
        total = torch.sqrt(sum((g.double() ** 2).sum() for g in grads))
        scale = max_norm / (float(total) + 1e-6)
        if scale < 1.0:  # only shrink
            for g in grads:
                g.mul_(scale)
    optimizer.step()
    return float(loss.detach())


def has_bad_grad(model):
    return any(
        bool((torch.isnan(p.grad) | torch.isinf(p.grad)).any())
        for p in model.parameters()
        if p.grad is not None
    )
