def predict(model, X):
    model.eval()  # switches Dropout/BatchNorm, not gradient recording
    return model(X)


def snapshot(t):
    return t.detach().clone()
