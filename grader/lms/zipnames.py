"""Zip entries that claim a UTF-8 name and do not have one.

An entry's general-purpose flag bit 11 says "this name is UTF-8". Some archivers set it on
names in the machine's own code page (a Windows zipper with GBK names; a script that sets the
bit on every entry). Python's ``zipfile`` then fails while it reads the central directory
(``UnicodeDecodeError``), so the whole archive was unreadable and every other exercise in it
was lost with the one bad name.

Here the archive is read through :class:`Patched`, a view of the same bytes in which those
entries' flags (central directory and local header) no longer claim UTF-8, so ``zipfile``
reads them; the caller names each such entry as the file system names a file whose name is not
UTF-8: its bytes decoded with ``surrogateescape`` (shown later as ``\\xNN``). Nothing else in
the archive changes, and no byte is written anywhere.

The central directory is found as ``zipfile`` finds it (the end record, then a Zip64 locator
right before it). Where this walk and ``zipfile`` could ever disagree, the patch misses and
``zipfile`` fails as before: the archive stays unreadable, never read wrongly.
"""

from __future__ import annotations

import bisect
import io
import struct
from typing import Any, BinaryIO

UTF8_NAME = 0x800  # general-purpose flag bit 11
_END = struct.Struct("<4s4H2LH")  # end of central directory record
_END_SIGNATURE = b"PK\x05\x06"
_LOCATOR = struct.Struct("<4sLQL")  # Zip64 end of central directory locator
_LOCATOR_SIGNATURE = b"PK\x06\x07"
_END64 = struct.Struct("<4sQ2H2L4Q")  # Zip64 end of central directory record
_END64_SIGNATURE = b"PK\x06\x06"
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # central directory file header
_CENTRAL_SIGNATURE = b"PK\x01\x02"
_LOCAL = struct.Struct("<4s2B4HL2L2H")  # local file header
_LOCAL_SIGNATURE = b"PK\x03\x04"
_FLAGS_AT = {_CENTRAL: 8, _LOCAL: 6}  # offset of the flag field in each header
MAX_COMMENT = 0xFFFF
MAX_DIRECTORY = 64 << 20  # a central directory read into memory, at most


class Patched(io.RawIOBase):
    """A read-only, seekable view of ``raw`` with some two-byte fields replaced."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw
        self._offsets: list[int] = []
        self._values: dict[int, bytes] = {}

    def patch(self, offset: int, value: bytes) -> None:
        if offset not in self._values:
            bisect.insort(self._offsets, offset)
        self._values[offset] = value

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def read(self, size: int | None = -1) -> bytes:
        start = self._raw.tell()
        data = self._raw.read(-1 if size is None else size)
        first = bisect.bisect_left(self._offsets, start - 1)
        if first == len(self._offsets) or self._offsets[first] >= start + len(data):
            return data
        out = bytearray(data)
        for offset in self._offsets[first:]:
            if offset >= start + len(data):
                break
            for i, byte in enumerate(self._values[offset]):
                if 0 <= offset + i - start < len(out):
                    out[offset + i - start] = byte
        return bytes(out)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _directory(raw: BinaryIO) -> tuple[int, bytes] | None:
    """Where the central directory starts, and its bytes, found as ``zipfile`` finds them."""
    span = _span(raw)
    if span is None or span[1] > MAX_DIRECTORY:
        return None
    start, length = span
    raw.seek(start)
    return start, raw.read(length)


def _span(raw: BinaryIO) -> tuple[int, int] | None:
    """Where the central directory starts and how long it is, found as ``zipfile`` finds
    them (None where there is no end record to find them by)."""
    raw.seek(0, io.SEEK_END)
    size = raw.tell()
    if size < _END.size:
        return None
    raw.seek(size - _END.size)
    last = raw.read(_END.size)
    if last[:4] == _END_SIGNATURE and last[-2:] == b"\0\0":
        at, record = size - _END.size, last
    else:
        tail_start = max(size - _END.size - MAX_COMMENT, 0)
        raw.seek(tail_start)
        tail = raw.read()
        found = tail.rfind(_END_SIGNATURE)
        if found < 0 or found + _END.size > len(tail):
            return None
        at, record = tail_start + found, tail[found : found + _END.size]
    _, _, _, _, _, length, _, _ = _END.unpack(record)
    end = at
    if at >= _LOCATOR.size:
        raw.seek(at - _LOCATOR.size)
        locator = raw.read(_LOCATOR.size)
        record64_at = at - _LOCATOR.size - _END64.size
        if locator[:4] == _LOCATOR_SIGNATURE and record64_at >= 0:
            raw.seek(record64_at)
            record64 = raw.read(_END64.size)
            if len(record64) == _END64.size and record64[:4] == _END64_SIGNATURE:
                end, length = record64_at, _END64.unpack(record64)[8]
    start = end - length
    if start < 0:
        return None
    return start, length


def entries(raw: BinaryIO, most: int) -> int | None:
    """How many entries the central directory of the zip archive ``raw`` holds, counted by
    walking it header by header as ``zipfile`` reads it (the end record's own count is not
    what ``zipfile`` goes by), and no further than ``most + 1``: ``zipfile`` builds an object
    for every entry before anyone can count them, so a directory of millions of empty
    entries (a zip bomb by count) is counted here first. A directory over
    ``MAX_DIRECTORY`` bytes counts as over ``most``. None where there is no directory to walk
    (``zipfile`` then says what is wrong)."""
    span = _span(raw)
    if span is None:
        return None
    start, length = span
    if length > MAX_DIRECTORY:
        return most + 1
    count = at = 0
    while at + _CENTRAL.size <= length and count <= most:
        raw.seek(start + at)
        header = raw.read(_CENTRAL.size)
        if len(header) < _CENTRAL.size or header[:4] != _CENTRAL_SIGNATURE:
            break  # zipfile refuses the directory itself
        name_length, extra_length, comment_length = _CENTRAL.unpack(header)[12:15]
        at += _CENTRAL.size + name_length + extra_length + comment_length
        count += 1
    return count


def _not_utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def unflag(raw: BinaryIO) -> tuple[Patched, dict[int, str]] | None:
    """A view of the zip archive ``raw`` in which no central directory entry claims a UTF-8
    name it does not have, and those entries' names by their index in the directory (the
    order of ``ZipFile.infolist()``), decoded as the file system decodes a name:
    ``surrogateescape``. None where there is no such entry or no directory to walk."""
    found = _directory(raw)
    if found is None:
        return None
    start, directory = found
    view = Patched(raw)
    names: dict[int, str] = {}
    at = index = 0
    while at + _CENTRAL.size <= len(directory):
        header = _CENTRAL.unpack_from(directory, at)
        if header[0] != _CENTRAL_SIGNATURE:
            break
        flags, name_length, extra_length, comment_length = (header[5], *header[12:15])
        name = directory[at + _CENTRAL.size : at + _CENTRAL.size + name_length]
        if flags & UTF8_NAME and _not_utf8(name):
            view.patch(start + at + _FLAGS_AT[_CENTRAL], struct.pack("<H", flags & ~UTF8_NAME))
            names[index] = name.decode("utf-8", "surrogateescape")
        at += _CENTRAL.size + name_length + extra_length + comment_length
        index += 1
    return (view, names) if names else None


def unflag_local(view: Patched, raw: BinaryIO, header_offset: int) -> None:
    """The local header at ``header_offset`` no longer claims a UTF-8 name it does not have
    (``zipfile`` checks the local name against the directory's when it opens the entry)."""
    raw.seek(header_offset)
    header = raw.read(_LOCAL.size)
    if len(header) < _LOCAL.size or header[:4] != _LOCAL_SIGNATURE:
        return
    fields = _LOCAL.unpack(header)
    flags, name_length = fields[3], fields[10]
    if flags & UTF8_NAME and _not_utf8(raw.read(name_length)):
        view.patch(header_offset + _FLAGS_AT[_LOCAL], struct.pack("<H", flags & ~UTF8_NAME))
