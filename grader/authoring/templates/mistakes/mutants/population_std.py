def standardize(x):
    return (x - x.mean(dim=0)) / x.std(dim=0, unbiased=False)
