def double(x):
    while True:
        pass


def triple(x):
    return x * 3
