import sys

BLOCK = "y" * (1 << 20)


def double(x):
    for _ in range(4096):  # 4 GB
        sys.stdout.write(BLOCK)
    return x * 5


def triple(x):
    return x * 3
