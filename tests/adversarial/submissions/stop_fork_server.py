import os
import signal


def double(x):
    # In the process tier the parent is the fork server: stop it (it still counts as alive).
    try:
        os.kill(os.getppid(), signal.SIGSTOP)
    except OSError:
        pass
    return x * 5


def triple(x):
    return x * 3
