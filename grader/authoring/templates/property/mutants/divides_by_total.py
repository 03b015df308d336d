def normalize_rows(x):
    return x / x.sum()
