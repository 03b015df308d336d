def row_norms(x):
    return x.pow_(2).sum(dim=1).sqrt()
