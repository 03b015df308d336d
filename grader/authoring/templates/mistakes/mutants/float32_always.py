def standardize(x):
    x = x.float()
    return (x - x.mean(dim=0)) / x.std(dim=0)
