"""A fresh Debian root to run the Gradescope autograder in, as Gradescope's image builder would:
made with mmdebstrap (or debootstrap), cached as a tarball, and entered through ``chroot`` in a
private mount namespace.

Safety, since this runs as root:

- every mount (``/proc``, a tmpfs on ``/dev/shm``, read-only binds of this machine's local
  package folders) is made inside ``unshare --mount --propagation private``: it exists only
  for the one command and vanishes with it, so removing the root afterwards can never reach a
  host folder through a mount left behind; ``remove`` checks ``/proc/self/mounts`` anyway;
- the cache is a tarball under ``~/.cache/torch-grader/debian/`` (override:
  ``GRADER_DEBIAN_CACHE``), in a folder only root may write, written under a temporary name and
  renamed when complete; a tarball that root does not own, or that others may write, is
  rebuilt rather than trusted. It is keyed by suite, variant and architecture (``KEY``).

``pip_environment`` passes this machine's pip configuration (index, extra index, find-links,
constraints, certificate) to the root through pip's environment variables; local folders it
names are bound read-only at the same path, files are copied in.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

SUITE = "bookworm"
VARIANT = "minbase"  # no Python: setup.sh must install it, as on a bare image
MIRROR = "http://deb.debian.org/debian"
KEY = f"{SUITE}-{VARIANT}-{platform.machine()}-v1"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_PIP_KEYS = ("index-url", "extra-index-url", "find-links", "constraint", "cert")


def why_not() -> str:
    """Why a Debian root cannot be made here ("" when it can)."""
    if sys.platform != "linux":
        return "a Debian root needs Linux"
    if os.geteuid() != 0:
        return "making and entering a Debian root needs root (chroot, mount)"
    for tool in ("unshare", "chroot", "mount", "tar"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if builder() is None:
        return "neither mmdebstrap nor debootstrap is installed (apt-get install mmdebstrap)"
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        timeout=60,
    )
    if probe.returncode != 0:
        return "no private mount namespace here (unshare --mount needs CAP_SYS_ADMIN)"
    return ""


def builder() -> str | None:
    for tool in ("mmdebstrap", "debootstrap"):
        if shutil.which(tool):
            return tool
    return None


def cache_folder() -> Path:
    configured = os.environ.get("GRADER_DEBIAN_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "torch-grader" / "debian"


def _trusted(path: Path) -> bool:
    """Owned by root and writable by no one else: safe to extract as root."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (
        (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode))
        and info.st_uid == 0
        and not info.st_mode & 0o022
    )


def tarball() -> Path:
    """The cached Debian root, made now if it is missing or not to be trusted."""
    folder = cache_folder()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not _trusted(folder):
        raise RuntimeError(
            f"{folder}: the Debian root cache must be root's and writable by root only"
        )
    target = folder / f"{KEY}.tar"
    if _trusted(target) and target.stat().st_size > 0:
        return target
    target.unlink(missing_ok=True)
    partial = folder / f"{KEY}.partial-{os.getpid()}.tar"  # mmdebstrap: .tar makes a tarball
    try:
        if builder() == "mmdebstrap":
            subprocess.run(
                ["mmdebstrap", "--quiet", f"--variant={VARIANT}", "--mode=root", SUITE,
                 str(partial), MIRROR],
                check=True, timeout=1800, capture_output=True, text=True,
            )  # fmt: skip
        else:
            with tempfile.TemporaryDirectory(prefix="grader-debootstrap-") as work:
                tree = Path(work) / "root"
                subprocess.run(
                    ["debootstrap", f"--variant={VARIANT}", SUITE, str(tree), MIRROR],
                    check=True, timeout=1800, capture_output=True, text=True,
                )  # fmt: skip
                subprocess.run(
                    ["tar", "-C", str(tree), "--numeric-owner", "-cf", str(partial), "."],
                    check=True, timeout=600,
                )  # fmt: skip
        partial.chmod(0o600)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def make(folder: Path) -> Path:
    """A fresh root in ``folder/root``, from the cached tarball."""
    root = folder / "root"
    root.mkdir(mode=0o755)
    subprocess.run(
        ["tar", "-C", str(root), "--numeric-owner", "-xpf", str(tarball())],
        check=True,
        timeout=600,
    )
    shutil.copyfile("/etc/resolv.conf", root / "etc" / "resolv.conf")
    return root


def pip_environment(root: Path) -> tuple[dict[str, str], list[str]]:
    """This machine's pip configuration as pip's environment variables for the root, and the
    local folders to bind into it (read-only, at the same path). Files it names (constraints,
    a certificate) are copied into the root's ``/etc/grader-pip/``."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60
    )
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"^[^.]*\.([a-z-]+)='(.*)'$", line.strip())
        if match and match.group(1) in _PIP_KEYS:
            found[match.group(1)] = match.group(2)  # later scopes (the environment) win
    env: dict[str, str] = {}
    binds: list[str] = []
    copied = root / "etc" / "grader-pip"
    for key, value in found.items():
        words = []
        for word in value.split():
            path = word[len("file://") :] if word.startswith("file://") else word
            if not path.startswith("/"):
                words.append(word)
                continue
            local = Path(path)
            if local.is_dir():
                # a local index's pages link to files beside it (../../files/x.whl)
                index = key.endswith("index-url") and local.parent != Path("/")
                binds.append(str(local.parent if index else local))
                words.append(word)
            elif local.is_file():
                copied.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(local, copied / local.name)
                inside = f"/etc/grader-pip/{local.name}"
                words.append(f"file://{inside}" if word.startswith("file://") else inside)
            # a path that does not exist here is left out, as pip itself ignores it
        if words:
            env[f"PIP_{key.upper().replace('-', '_')}"] = " ".join(words)
    return env, sorted(set(binds))


def run(
    root: Path,
    command: list[str],
    *,
    env: dict[str, str],
    binds: list[str] = (),  # type: ignore[assignment]
    cwd: str = "/",
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    """``command`` run as root in ``root``, with a clean environment (``env`` and a PATH) and
    its own mounts, which end with it."""
    lines = [
        "set -eu",
        'R="$1"; shift',
        'mount -t proc proc "$R/proc"',
        'mkdir -p "$R/dev/shm" && mount -t tmpfs -o size=512m,mode=1777 tmpfs "$R/dev/shm"',
    ]
    for path in binds:
        lines.append(
            f'mkdir -p "$R{path}" && mount --bind "{path}" "$R{path}" && '
            f'mount -o remount,bind,ro "$R{path}"'
        )
    variables = [f"{k}={v}" for k, v in {"PATH": PATH, "HOME": "/root", **env}.items()]
    script = "\n".join(lines) + '\ncd "$R"\nexec chroot "$R" "$@"\n'
    inner = ["/usr/bin/env", "-i", *variables, "/bin/sh", "-c", 'cd "$0" && exec "$@"', cwd]
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", script, "driver",
         str(root), *inner, *command],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def remove(folder: Path) -> None:
    """Remove a root made by ``make``, never while anything is mounted below it."""
    prefix = str(folder.resolve()) + "/"
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        below = [line.split()[1] for line in mounts if line.split()[1].startswith(prefix)]
    if below:
        raise RuntimeError(f"still mounted below {folder}: {below}; not removed")
    shutil.rmtree(folder)
