import ctypes


def double(x):
    ctypes.string_at(0)


def triple(x):
    return x * 3
