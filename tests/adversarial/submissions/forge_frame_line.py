import sys


def double(x):
    # Rewrite what the child sends about an exception: a traceback line that is not a number.
    messages = sys.modules.get("grader.sandbox.messages")
    if messages is not None:
        messages.ErrorFrame.to_wire = lambda self: {"line": "abc", "function": "f", "code": ""}
    raise ValueError("boom")


def triple(x):
    return x * 3
