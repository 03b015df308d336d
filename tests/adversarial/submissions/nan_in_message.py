import sys


def double(x):
    # A NaN where the exception's message (a string) belongs.
    messages = sys.modules.get("grader.sandbox.messages")
    if messages is not None:
        original = messages.ErrorInfo.to_wire

        def forged(self):
            data = original(self)
            data["message"] = float("nan")
            return data

        messages.ErrorInfo.to_wire = forged
    raise ValueError("boom")


def triple(x):
    return x * 3
