def standardize(x):
    return (x - x.mean()) / x.std()
