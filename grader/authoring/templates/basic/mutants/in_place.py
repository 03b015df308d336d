def scale(x, factor):
    x *= factor
    return x
