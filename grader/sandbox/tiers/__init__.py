"""Isolation tiers: how much of the sandbox's policy this machine can enforce.

``process`` (:mod:`.process`, always): a separate process in its own session, rlimits, a
scrubbed environment, a scratch folder, and (as root) an unprivileged uid. ``namespaces``
(:mod:`.namespaces`, Linux as root or with user namespaces): the same inside private PID,
network, mount, IPC and UTS namespaces, with the policy's file system view and an unprivileged
uid. The fork server detects the strongest tier by a trial run and names it in every result;
``docs/SECURITY.md`` states what each guarantees. The uids: :mod:`.uids`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    """The isolation a learner child gets on this machine, named in every result."""

    name: str  # "namespaces" or "process"
    user_namespace: bool = False  # not root: the host user maps to root inside, no uid of its own
    own_uid: bool = False  # each learner child runs as an unprivileged uid (the grader is root)

    @property
    def description(self) -> str:
        if self.name != "namespaces":
            who = " as an unprivileged uid" if self.own_uid else ""
            return f"process (separate process{who}, rlimits, scrubbed environment, scratch folder)"
        who = (
            "host user mapped into a user namespace"
            if self.user_namespace
            else "an unprivileged uid of its own"
        )
        return f"namespaces (private PID, network, mount, IPC and UTS namespaces; runs as {who})"
