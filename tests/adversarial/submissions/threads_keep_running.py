import threading


def _spin():
    n = 0
    while True:
        n += 1
        if n % 2_000_000 == 0:
            print("still spinning")


threading.Thread(target=_spin, daemon=True).start()


def double(x):
    return x * 2


def triple(x):
    return x * 3
