import sys


def double(x):
    sys.exit(0)


def triple(x):
    return x * 3
