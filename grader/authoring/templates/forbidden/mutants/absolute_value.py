def relu(x):
    return x.abs()
