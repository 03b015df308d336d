import os

BLOCK = b"h" * (1 << 20)


def double(x):
    # An honest use of the scratch folder: 24 MiB of files, some in a folder, read back, and
    # some deleted again (the quota counts what the folder holds, not what was ever written).
    os.makedirs("cache", exist_ok=True)
    for i in range(8):
        with open(os.path.join("cache" if i % 2 else ".", f"part-{i}.bin"), "wb") as handle:
            handle.write(BLOCK * 3)
    total = 0
    for i in range(8):
        with open(os.path.join("cache" if i % 2 else ".", f"part-{i}.bin"), "rb") as handle:
            total += len(handle.read())
        if i % 4 == 0:
            os.remove(os.path.join("cache" if i % 2 else ".", f"part-{i}.bin"))
    assert total == 24 << 20
    return x * 2


def triple(x):
    return x * 3
