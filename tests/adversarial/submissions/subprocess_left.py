import subprocess


def double(x):
    subprocess.Popen(["sleep", "__MARKER__"], start_new_session=True)
    return x * 5


def triple(x):
    return x * 3
