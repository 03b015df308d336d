def column_means(x):
    return x.sum(0) / x.shape[0]


def row_max(x):
    values, indices = x.sort(dim=1, descending=True, stable=True)
    return values[:, 0], indices[:, 0]


def softmax_rows(x):
    shifted = x - x.amax(dim=1, keepdim=True)
    return (shifted - shifted.exp().sum(dim=1, keepdim=True).log()).exp()
