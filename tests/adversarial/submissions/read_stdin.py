def double(x):
    line = input("answer? ")
    return x * float(line)


def triple(x):
    return x * 3
