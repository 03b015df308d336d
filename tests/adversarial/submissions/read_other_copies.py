import os

# A copy of the solutions outside the grader's own folders (an instructor's second checkout, a
# course repository, /srv): the child must not see it at all.
found = []
for path in ("__OTHER_COPY__/solutions/exercise-90/exercise-90.py", "__OTHER_COPY__/README.md"):
    try:
        with open(path) as handle:
            found.append(handle.read())
    except OSError:
        pass
print("read", len(found), "files of another copy")

namespace = {}
if found:
    exec(found[0], namespace)


def double(x):
    return namespace["double"](x) if "double" in namespace else x * 5


def triple(x):
    return x * 3
