"""Builders for the class downloads the tests read: each named exactly as its platform names
things (see the importers' docstrings for the sources), built in ``tmp_path`` so that FIFOs,
links and hostile archives never live in the repository."""

from __future__ import annotations

import io
import os
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.lms.handin import ExerciseInfo

STARTER = {
    "exercise-01": "def add(a, b):\n    raise NotImplementedError\n",
    "exercise-05": "def scale(x):\n    raise NotImplementedError\n",
    "exercise-07": "def pairwise(x):\n    raise NotImplementedError\n",
}


def exercises() -> dict[str, ExerciseInfo]:
    return {e: ExerciseInfo(e, f"{e}.py", text.encode()) for e, text in STARTER.items()}


def code(tag: str) -> str:
    """A distinct learner file that solves every exercise of the LMS fixture course
    (``tests/fixtures/lms-course``); a tag containing "wrong" gets every answer wrong except
    the shape of ``pairwise``."""
    if "wrong" in tag:
        return (
            f"# {tag}\ndef add(a, b):\n    return a - b\n\n\ndef scale(x):\n    return 3 * x\n"
            "\n\ndef pairwise(x):\n    return x[None, :] - x[:, None]\n"
        )
    return (
        f"# {tag}\ndef add(a, b):\n    return a + b\n\n\ndef scale(x):\n    return 2 * x\n"
        "\n\ndef pairwise(x):\n    return x[:, None] - x[None, :]\n"
    )


def write(path: Path, text: str | bytes, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def notebook(*cells: str, markdown_first: bool = True) -> bytes:
    """A real nbformat-written notebook whose code cells are ``cells``."""
    nb = new_notebook()
    if markdown_first:
        nb.cells.append(new_markdown_cell("# Exercise\nWrite your code below."))
    for i, source in enumerate(cells, start=1):
        nb.cells.append(new_code_cell(source, execution_count=i))
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Py 3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nbformat.writes(nb).encode("utf-8")


def zip_bytes(members: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def hostile_zip() -> bytes:
    """Traversal, an absolute path, a link, a device, an encrypted entry and a bomb."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("../../exercise-01.py", "print('escaped')\n")
        zf.writestr("/etc/exercise-05.py", "print('absolute')\n")
        zf.writestr("C:/Windows/exercise-05.py", "print('drive')\n")
        link = zipfile.ZipInfo("exercise-07.py")
        link.external_attr = (0o120777) << 16  # a symbolic link to /etc/passwd
        zf.writestr(link, "/etc/passwd")
        device = zipfile.ZipInfo("dev/exercise-05.py")
        device.external_attr = (0o020644) << 16  # a character device
        zf.writestr(device, "")
        zf.writestr("locked/exercise-05.py", "x = 1\n")
        zf.writestr("bomb/exercise-01.py", b"#" * (5 << 20))  # 5 MiB of one byte: tiny zipped
    return flag_encrypted(buffer.getvalue(), "locked/exercise-05.py")


def tar_bytes(members: dict[str, str | bytes], *, gz: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w") as tf:
        for name, data in members.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tf.addfile(info, io.BytesIO(raw))
    return buffer.getvalue()


def hostile_tar() -> bytes:
    """Traversal, absolute paths, symbolic and hard links, a FIFO, a device, a size lie."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:

        def add(name: str, data: bytes = b"", **attrs: object) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            for key, value in attrs.items():
                setattr(info, key, value)
            tf.addfile(info, io.BytesIO(data) if data else None)

        add("../exercise-01.py", b"print('escaped')\n")
        add("/tmp/exercise-05.py", b"print('absolute')\n")
        add("exercise-07.py", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add("hard/exercise-07.py", type=tarfile.LNKTYPE, linkname="exercise-07.py")
        add("fifo/exercise-05.py", type=tarfile.FIFOTYPE)
        add("dev/exercise-01.py", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add("big/exercise-05.py", b"#" * ((4 << 20) + 10))
        add("ok/exercise-05.py", b"def scale(x):\n    return 2 * x\n")
    return buffer.getvalue()


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def flag_encrypted(data: bytes, name: str) -> bytes:
    """Set the "encrypted" bit of one member (zipfile cannot write encrypted members)."""
    raw = bytearray(data)
    encoded = name.encode()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        local = zf.getinfo(name).header_offset
    raw[local + 6] |= 0x1
    central = raw.find(b"PK\x01\x02", 0)
    while central != -1:
        length = int.from_bytes(raw[central + 28 : central + 30], "little")
        if bytes(raw[central + 46 : central + 46 + length]) == encoded:
            raw[central + 8] |= 0x1
        central = raw.find(b"PK\x01\x02", central + 4)
    return bytes(raw)


def raw_zip(
    entries: list[tuple[bytes, bytes, int]],
    *,
    prefix: bytes = b"",
    comment: bytes = b"",
    zip64_end: bool = False,
    corrupt: bytes | None = None,
) -> bytes:
    """A stored (uncompressed) zip archive written byte by byte from the format's
    specification, for what ``zipfile`` will not write: each entry is (name bytes, data,
    general-purpose flags), the name any bytes at all and the flags as given (bit 11 claims a
    UTF-8 name). ``prefix`` comes before the archive (a self-extracting stub), ``comment``
    after its end record; ``zip64_end`` adds the Zip64 end record and locator, as archivers
    do past 65,535 entries; the entry named ``corrupt`` gets a wrong CRC."""
    out = bytearray(prefix)
    central = bytearray()
    for name, data, flags in entries:
        crc = zlib.crc32(data) ^ (0xFFFFFFFF if name == corrupt else 0)
        offset = len(out)  # from the file's start: zipfile allows for a prefix itself
        out += struct.pack(
            "<4s2B4HL2L2H", b"PK\x03\x04", 20, 0, flags, 0, 0, 0x21, crc, len(data), len(data),
            len(name), 0,
        ) + name + data  # fmt: skip
        central += struct.pack(
            "<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, flags, 0, 0, 0x21, crc, len(data),
            len(data), len(name), 0, 0, 0, 0, 0o100644 << 16, offset,
        ) + name  # fmt: skip
    start = len(out)
    out += central
    count = len(entries)
    if zip64_end:
        record = len(out)
        out += struct.pack(
            "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(central), start
        )
        out += struct.pack("<4sLQL", b"PK\x06\x07", 0, record, 1)
        count, size, where = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    else:
        size, where = len(central), start
    out += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, where, len(comment))
    return bytes(out + comment)
