"""What a learner child may see and use, as data: the sandbox's policy, apart from its mechanics.

The tiers (:mod:`grader.sandbox.tiers`) carry a policy out with whatever the machine allows:
rlimits and a scrubbed environment everywhere, namespaces where Linux permits. Keeping the policy
here, as plain frozen dataclasses, makes it one thing to read, test and extend (the hidden
folders of a batch, the environment a child inherits, the sizes of its private file systems),
and keeps the mechanics free of decisions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChildLimits:
    """Limits of one learner child (from the exercise's ``limits``)."""

    memory_mb: int = 3072  # address space above what the fork server already maps; CPU only
    cpu_seconds: int = 300  # CPU time over the child's whole life; the wall deadline comes first
    file_mb: int = 64  # largest file the child may write
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

    ``hidden``: folders the child must not see at all (the hidden tests, the solutions, and in a
    batch the class's submissions and the grader's outputs). ``private_tmp``: world-writable
    host places replaced by private, size-limited, discarded file systems. ``env``: the only
    variables of the grader's environment a child keeps. ``network``: whether it may reach any
    network (never, today). The namespaces tier enforces all of it; the process tier only the
    environment (``docs/SECURITY.md`` says what each tier guarantees).
    """

    hidden: tuple[str, ...] = ()
    private_tmp: tuple[tuple[str, str], ...] = (
        ("/tmp", "256m"),
        ("/var/tmp", "16m"),
        ("/dev/shm", "64m"),
    )
    env: tuple[str, ...] = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
    network: bool = False
    workdir: str = "/tmp/work"  # where the scratch folder appears inside the namespaces
