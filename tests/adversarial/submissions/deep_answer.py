def double(x):
    nested = []
    for _ in range(100_000):
        nested = [nested]
    return nested


def triple(x):
    return x * 3
