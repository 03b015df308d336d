"""The learner side of a call (grader.sandbox.child.LearnerSide), outside any sandbox.

Each case runs in a fresh interpreter: the learner side seeds torch's global generators, which
this process must keep as they are.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_fresh

_DRAWS = textwrap.dedent(
    """
    import json, random, sys, tempfile
    from pathlib import Path
    import numpy as np
    import torch
    from grader.sandbox import child, codec

    folder = Path(tempfile.mkdtemp())
    learner = folder / "exercise-99.py"
    learner.write_text(
        "import random\\n"
        "import numpy as np\\n"
        "import torch\\n"
        "def draw():\\n"
        "    return [torch.rand(4).tolist(), torch.randn(2, 2).tolist(),\\n"
        "            random.random(), np.random.rand(3).tolist()]\\n"
    )
    side = child.LearnerSide(str(learner), 1 << 20, cuda=sys.argv[1] == "cuda")
    assert side.import_learner().ok
    payload, blobs = codec.encode([[], {}])
    draws = []
    for seed in (11, 2**40 + 3, 11):
        answer, _ = side.handle({"id": "x", "op": "call", "name": "draw", "seed": seed,
                                 "payload": payload}, [bytearray(b) for b in blobs])
        assert answer.ok, answer.error
        draws.append(codec.decode({"value": answer.value, "storages": []}, []))
    print(json.dumps(draws))
    """
)


def _expected(seed: int) -> list:
    import random

    import numpy as np
    import torch

    state = torch.get_rng_state(), random.getstate(), np.random.get_state()
    try:
        random.seed(seed)
        np.random.seed(seed % (2**32))
        torch.manual_seed(seed)
        return [
            torch.rand(4).tolist(),
            torch.randn(2, 2).tolist(),
            random.random(),
            np.random.rand(3).tolist(),
        ]
    finally:
        torch.set_rng_state(state[0])
        random.setstate(state[1])
        np.random.set_state(state[2])


@pytest.mark.parametrize("kind", ["cpu", "cuda"])
def test_every_call_draws_what_torch_manual_seed_gives(kind):
    """A CPU child seeds only the CPU generator (the one it can use): the learner's draws are
    those after random.seed, np.random.seed and torch.manual_seed, on every call alike."""
    code = _DRAWS.replace("sys.argv[1]", repr(kind))
    draws = json.loads(run_fresh(code).strip().splitlines()[-1])
    assert draws == [_expected(11), _expected(2**40 + 3), _expected(11)]


_COMMENT_BYTES = st.binary(max_size=6).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))
_COOKIES = st.sampled_from([b"", b"# -*- coding: utf-8 -*-\n", b"# coding: latin-1\n"])


@settings(max_examples=40, deadline=None)
@given(cookie=_COOKIES, first=_COMMENT_BYTES, later=_COMMENT_BYTES, bom=st.booleans())
def test_a_file_imports_exactly_when_python_would_run_it(
    tmp_path_factory, cookie, first, later, bom
):
    """compile() of bytes checks less than ``python file.py``: a Latin-1 byte in a comment
    passed it, and a file Python refuses to run scored full marks. The child refuses what
    Python refuses, whatever the bytes in the comments, the cookie or the BOM."""
    from grader.sandbox.child import _decodes_as_python_reads

    source = (b"\xef\xbb\xbf" if bom else b"") + cookie
    source += b"x = 1  # " + first + b"\ny = 2\n# " + later + b"\nprint(x + y)\n"
    path = tmp_path_factory.mktemp("py") / "f.py"
    path.write_bytes(source)
    python_runs = subprocess.run([sys.executable, "-I", "-S", str(path)], capture_output=True)
    try:
        _decodes_as_python_reads(source, "f.py")
        compile(source, "f.py", "exec", dont_inherit=True)
        child_runs = True
    except (SyntaxError, ValueError):
        child_runs = False
    assert child_runs == (python_runs.returncode == 0), python_runs.stderr


_ANY_COOKIE = st.one_of(
    st.sampled_from([b"", b"# coding: ascii\n", b"# -*- coding: klingon -*-\n"]),
    st.from_regex(rb"\A# coding[:=] ?[a-z0-9_-]{1,12}\n\Z"),
)


@settings(max_examples=60, deadline=None)
@given(cookie=_ANY_COOKIE, comment=_COMMENT_BYTES, tail=st.sampled_from([b"", b"(", b"\x00"]))
def test_whatever_an_import_raises_is_read_by_the_trusted_side(
    tmp_path_factory, cookie, comment, tail
):
    """The child's account of a failed import must pass the trusted side's strict reader: an
    unknown coding cookie gives a SyntaxError whose offset is -1, which the reader refused, so
    every test said "malformed answer" and was diagnosed as "not a plain tensor"."""
    from grader.sandbox import child
    from grader.sandbox.messages import Hello

    path = tmp_path_factory.mktemp("py") / "f.py"
    path.write_bytes(cookie + b"# " + comment + b"\nx = 1\n" + tail)
    hello = child.LearnerSide(str(path), 1 << 20, cuda=False).import_learner()
    read = Hello.from_wire({**hello.to_wire(), "blobs": []})  # as the protocol frames it
    assert read.ok == hello.ok
    if not hello.ok:
        assert read.error is not None and read.error.type == hello.error.type
