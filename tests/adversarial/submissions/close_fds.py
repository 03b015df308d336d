import os


def double(x):
    os.closerange(3, 4096)
    return x * 2


def triple(x):
    return x * 3
