def standardize(x):
    mean, std = x.mean(dim=0), x.std(dim=0)
    x -= mean
    x /= std
    return x
