def normalize_rows(x):
    return x / x.max(dim=1, keepdim=True).values
