def normalize_rows(x):
    x /= x.sum(dim=1, keepdim=True)
    return x
