import os


def double(x):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "__MARKER__"])
        os._exit(0)
    return x * 5


def triple(x):
    return x * 3
