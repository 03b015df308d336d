import sys

sys.setrecursionlimit(10**7)


def _down(n):
    return _down(n + 1) + 1


def double(x):
    return _down(0)


def triple(x):
    return x * 3
