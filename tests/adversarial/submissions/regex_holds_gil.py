import re


def double(x):
    # catastrophic backtracking: one C call that never releases the GIL
    re.match(r"(a+)+$", "a" * 64 + "b")
    return x * 2


def triple(x):
    return x * 3
