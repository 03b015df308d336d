def scale(x, factor):
    y = x.clone()
    y.mul_(factor)
    return y
