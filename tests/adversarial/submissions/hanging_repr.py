class Slow:
    def __repr__(self):
        while True:
            pass


def double(x):
    return Slow()


def triple(x):
    return x * 3
