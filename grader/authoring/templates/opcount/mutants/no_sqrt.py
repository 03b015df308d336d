def row_norms(x):
    return (x * x).sum(dim=1)
