def relu(x):
    return x.clone().clamp_(min=0)
