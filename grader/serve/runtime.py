"""Where a learner's warm server lives, and who may talk to it.

One server per user and per grader installation: its socket, lock and log are in a private
runtime folder, ``$XDG_RUNTIME_DIR/torch-grader`` or, without one, ``torch-grader-<uid>`` in the
temp folder. The folder must be the user's own with no access for anyone else (mode 0700, no
symlink): another user who could create it first could otherwise put a socket of their own
there. The socket itself is 0600, and both ends check the other's uid on every connection
(``SO_PEERCRED``), so that neither a stray permission nor a shared folder lets two users' code
meet.

The file names carry a key of what the server is for: the Python environment, the grader's
package, the course it grades, the isolation tier asked for. Two checkouts, two virtualenvs or a
``GRADER_HOME`` of one's own each get their own server.
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.resources import PACKAGE

FOLDER = "torch-grader"
IDLE_TIMEOUT_S = 15 * 60.0
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


class RuntimeFolderError(Exception):
    """The runtime folder cannot be used safely (the text says why and what to do)."""


@dataclass(frozen=True)
class Place:
    """The files of one server."""

    folder: Path
    key: str

    @property
    def socket(self) -> Path:
        return self.folder / f"{self.key}.sock"

    @property
    def lock(self) -> Path:
        return self.folder / f"{self.key}.lock"

    @property
    def log(self) -> Path:
        return self.folder / f"{self.key}.log"


def server_key(root: Path) -> str:
    """What tells one server from another: this Python, this grader, this course, this tier."""
    parts = (
        sys.prefix,
        sys.executable,
        str(PACKAGE),
        str(root.resolve()),
        os.environ.get("GRADER_ISOLATION", ""),
    )
    return "s-" + hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def runtime_folder() -> Path:
    """The user's private folder for servers, created if missing (a RuntimeFolderError if it
    exists and is not private)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        Path(base) / FOLDER
        if base and os.path.isdir(base)
        else Path(tempfile.gettempdir()) / f"{FOLDER}-{os.getuid()}"
    )
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise RuntimeFolderError(f"cannot create {folder}: {exc.strerror or exc}") from None
    check_private(folder)
    return folder


def check_private(folder: Path) -> None:
    """``folder`` is a real folder of this user's that nobody else can enter or list."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise RuntimeFolderError(f"cannot read {folder}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeFolderError(f"{folder} is not a folder (a link or a file)")
    if info.st_uid != os.getuid():
        raise RuntimeFolderError(f"{folder} belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o077:
        raise RuntimeFolderError(
            f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
            "it must be 700: run `chmod 700` on it, or remove it"
        )


def place(root: Path) -> Place:
    """The files of the server for the course at ``root``."""
    return Place(runtime_folder(), server_key(root))


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a connected Unix socket (from the kernel,
    not from anything the peer says)."""
    data = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    _pid, uid, _gid = _PEERCRED.unpack(data)
    return int(uid)


def same_user(sock: socket.socket) -> bool:
    """Whether the peer runs as this process's user."""
    try:
        return peer_uid(sock) == os.getuid()
    except OSError:
        return False


MAX_IDLE_S = 366 * 24 * 3600.0  # a year: any longer is no idle time a server is meant to keep


def idle_timeout() -> float:
    """Seconds an idle server waits before it exits: ``GRADE_SERVER_IDLE``, else 15 minutes."""
    value = os.environ.get("GRADE_SERVER_IDLE", "")
    try:
        seconds = float(value) if value else IDLE_TIMEOUT_S
    except ValueError:
        return IDLE_TIMEOUT_S
    # "inf" is a float too: a server that waits for ever could not say how long in its status
    # (JSON has no infinity), and `grade server status` said no server was running
    return seconds if 0 < seconds <= MAX_IDLE_S else IDLE_TIMEOUT_S


def disabled() -> bool:
    """``GRADE_NO_SERVER=1``: every command grades in its own process."""
    return os.environ.get("GRADE_NO_SERVER", "") not in ("", "0")
