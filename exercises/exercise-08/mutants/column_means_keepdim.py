def column_means(x):
    # keepdim=True keeps the reduced dim: (1, d) instead of (d,).
    return x.mean(dim=0, keepdim=True)


def row_max(x):
    values, indices = x.max(dim=1)
    return values, indices


def softmax_rows(x):
    e = (x - x.max(dim=1, keepdim=True).values).exp()
    return e / e.sum(dim=1, keepdim=True)
