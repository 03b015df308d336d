import os

# World-writable host places keep what is written there after the grading ends, unless the
# child never sees them.
written = []
for folder in ("/run/lock", "/var/lock", "/var/crash", "/var/mail"):
    try:
        path = os.path.join(folder, "grader-__MARKER__")
        with open(path, "w") as handle:
            handle.write("left behind")
        written.append(path)
    except OSError:
        pass
print("wrote", len(written), "files outside the scratch folder")


def double(x):
    return x * 5


def triple(x):
    return x * 3
