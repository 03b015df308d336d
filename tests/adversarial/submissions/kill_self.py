import os
import signal


def double(x):
    os.kill(os.getpid(), signal.SIGKILL)


def triple(x):
    return x * 3
