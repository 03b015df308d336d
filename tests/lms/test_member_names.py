"""An archive member's name as the archive's own readers read it: up to its first NUL."""

from __future__ import annotations

import io
import tarfile
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.collect import Collector
from grader.lms.handin import Handin
from tests.lms.builders import code, write

SOURCE = code("alice").encode()


def _tar(name: str, data: bytes, fmt: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tf:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(name, data)
    return buffer.getvalue()


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stem=st.sampled_from(["exercise-01.py", "notes.txt", "../up.py", "src/exercise-01.py"]),
    padding=st.text(st.sampled_from("\0x.py/"), max_size=20).map(lambda t: "\0" + t),
    times=st.integers(1, 40),
    fmt=st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, "zip"]),
)
def test_a_members_name_ends_at_its_first_nul(infos, tmp_path_factory, stem, padding, times, fmt):
    """A pax record keeps a name's NULs (ustar and GNU headers, and zipfile, cut it at the
    first): a tar member ``exercise-01.py`` padded with NULs was ignored as "not a .py file",
    with a run of ``\\x00`` as long as the padding in the message. It reads as its name."""
    name = stem + padding * times
    data = SOURCE
    archive = _zip(name, data) if fmt == "zip" else _tar(name, data, fmt)
    tmp = tmp_path_factory.mktemp("nul")
    write(tmp / "alice" / ("w.zip" if fmt == "zip" else "w.tar"), archive)
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(tmp / "alice", shown="alice/")
    handin = collector.finish()
    said = [*handin.problems, *collector.rejected, *collector.ignored]
    assert not any("\0" in line or "\\x00" in line for line in said), said
    assert ("exercise-01" in handin.files) == stem.endswith("exercise-01.py"), said
