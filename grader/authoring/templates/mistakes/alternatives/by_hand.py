def standardize(x):
    n = x.shape[0]
    centred = x - x.sum(dim=0) / n
    return centred / ((centred * centred).sum(dim=0) / (n - 1)).sqrt()
