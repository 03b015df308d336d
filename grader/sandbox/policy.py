"""What a learner child may see and use, as data: the sandbox's policy, apart from its mechanics.

The tiers (:mod:`grader.sandbox.tiers`) carry a policy out with whatever the machine allows:
rlimits and a scrubbed environment everywhere, namespaces where Linux permits. Keeping the policy
here, as plain frozen dataclasses, makes it one thing to read, test and extend (the hidden
folders of a batch, the environment a child inherits, the sizes of its private file systems),
and keeps the mechanics free of decisions.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

# What every Linux process needs of the host besides Python: the system's libraries and
# programs (read-only), the dynamic loader's cache, the time zone, the user database.
SYSTEM_PATHS = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
)
# What one file or folder of a scratch folder counts towards its quota, whatever its size: a
# folder of a million empty files fills a disk's inodes as surely as bytes fill its blocks.
SCRATCH_ENTRY_BYTES = 4096
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
CUDA_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps", "/dev/dri")


def runtime_paths() -> list[str]:
    """The folders the Python runtime itself lives in (prefixes, stdlib, site-packages),
    wherever it was installed: a virtualenv under /tmp, a home folder, conda, the system.

    Only the runtime's own entries of sys.path count: package folders (``site-packages``,
    ``dist-packages``) and anything inside a prefix. The folder of the script that started the
    grader, or the current folder (``python -m``), is not the runtime and is never shown."""
    prefixes = {
        os.path.realpath(p)
        for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    candidates = {*prefixes, os.path.dirname(os.__file__)}
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        inside = any(real == p or real.startswith(p.rstrip("/") + "/") for p in prefixes)
        if inside or os.path.basename(real) in ("site-packages", "dist-packages"):
            candidates.add(real)
    return outermost(p for p in candidates if os.path.isdir(p))


def outermost(paths: Iterable[str]) -> list[str]:
    """Real paths, keeping only the outermost of nested ones (binding a folder brings
    everything below it)."""
    found = sorted({os.path.realpath(p) for p in paths})
    return [
        p for p in found if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in found)
    ]


def runtime_readable(package: str) -> tuple[str, ...]:
    """Everything a learner child needs to read to behave as under plain ``python``: the
    system's libraries, the Python runtime and its packages, the grader's own package
    (``package``), and the folders the dynamic loader is told to search."""
    library_dirs = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    folders = outermost(p for p in [*runtime_paths(), package, *library_dirs] if os.path.isdir(p))
    system = [p for p in SYSTEM_PATHS if os.path.lexists(p)]
    return tuple(dict.fromkeys([*system, *folders]))


def device_nodes(cuda: bool) -> tuple[str, ...]:
    """The device nodes a child gets: the harmless ones always, the GPU's for CUDA children."""
    nodes = [d for d in DEVICES if os.path.exists(d)]
    if cuda:
        nodes += sorted(p for pattern in CUDA_DEVICES for p in glob.glob(pattern))
    return tuple(nodes)


@dataclass(frozen=True)
class ChildLimits:
    """Limits of one learner child (from the exercise's ``limits``)."""

    memory_mb: int = 3072  # address space above what the fork server already maps; CPU only
    cpu_seconds: int = 300  # CPU time over the child's whole life; the wall deadline comes first
    # The most the child may write to its scratch folder, all its files together (and so the
    # largest file it may write anywhere: RLIMIT_FSIZE). Each file and folder counts at least
    # SCRATCH_ENTRY_BYTES. Beyond it the child is stopped: "wrote more than N MiB to its folder".
    file_mb: int = 64
    open_files: int = 256
    max_answer_mb: int = 256

    def to_dict(self) -> dict[str, int]:
        return {
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "file_mb": self.file_mb,
            "open_files": self.open_files,
            "max_answer_mb": self.max_answer_mb,
        }

    @classmethod
    def from_dict(cls, data: dict[str, int]) -> ChildLimits:
        return cls(**{key: int(data[key]) for key in cls().to_dict()})


@dataclass(frozen=True)
class SandboxPolicy:
    """The file system, network and environment every learner child of a run gets.

    The file system is an allowlist: a child sees ``readable`` (read-only: the system's
    libraries, the Python runtime, the grader's package), its scratch folder at ``workdir``,
    private size-limited writable ``private_tmp`` file systems, a few device nodes (and the
    GPU's, for CUDA children, with ``cuda_readable``), its own ``/proc``, and nothing else of
    the host. ``hidden`` are folders that must stay invisible even where they lie inside a
    readable one (the course's hidden tests and solutions, when the grader is installed as a
    wheel). ``env``: the only variables of the grader's environment a child keeps.
    ``network``: whether it may reach any network (never, today). The namespaces tier enforces
    all of it; the process tier only the environment and the limits (``docs/SECURITY.md`` says
    what each tier guarantees).
    """

    hidden: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    cpu_readable: tuple[str, ...] = ("/sys/devices/system/cpu",)
    cuda_readable: tuple[str, ...] = ("/sys",)
    private_tmp: tuple[tuple[str, str], ...] = (
        ("/tmp", "256m"),
        ("/var/tmp", "16m"),
        ("/dev/shm", "64m"),
    )
    env: tuple[str, ...] = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
    network: bool = False
    workdir: str = "/tmp/work"  # where the scratch folder appears inside the namespaces
