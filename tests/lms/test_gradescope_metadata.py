"""Gradescope's ``submission_metadata.yml`` is read strictly: YAML aliases cannot amplify it,
a field of the wrong type is a usage error naming the file and the field (never exit 3), and
no generated metadata makes the reader fail any other way."""

from __future__ import annotations

import json
import re
import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.lms import gradescope
from tests.conftest import PROBE_HOME, run_cli
from tests.lms.builders import code, write
from tests.lms.classes import GRADESCOPE_METADATA


def laughs(levels: int = 6) -> str:
    """A few hundred bytes whose aliases expand to 9**levels strings, used as a name."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [{','.join([f'*l{i - 1}'] * 9)}]")
    lines += [
        "submission_1001:",
        "  :submitters:",
        f"  - :name: *l{levels}",
        "    :sid: '1001'",
        "    :email: jane@example.edu",
    ]
    return "\n".join(lines) + "\n"


def test_aliases_cannot_amplify_the_metadata(tmp_path):
    text = laughs()
    assert len(text) < 600
    path = write(tmp_path / "submission_metadata.yml", text)
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert str(path) in caught.value.message


def test_aliases_are_bounded_even_where_ruby_uses_them(tmp_path):
    """Ruby writes an alias for an object it wrote before: a few are read as they are."""
    text = GRADESCOPE_METADATA.replace(
        "    :email: jane.doe@example.edu\n", "    :email: &mail jane.doe@example.edu\n"
    ).replace("  :status: processed\n", "  :status: processed\n  :contact: *mail\n")
    path = write(tmp_path / "submission_metadata.yml", text)
    found = gradescope.read_metadata(path)
    assert found["submission_1001"][0][0].email == "jane.doe@example.edu"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("submission_1: {':submitters': 5}\n", "submission_1.:submitters"),
        ("submission_1: {':submitters': [5]}\n", "submission_1.:submitters[0]"),
        (
            "submission_1: {':submitters': [{':name': [a, b]}]}\n",
            "submission_1.:submitters[0].:name",
        ),
        ("submission_1: {':submitters': [{':sid': {a: 1}}]}\n", "submission_1.:submitters[0].:sid"),
        (
            "submission_1: {':submitters': [{':email': [3.5]}]}\n",
            "submission_1.:submitters[0].:email",
        ),
        ("submission_1: {':created_at': 5}\n", "submission_1.:created_at"),
        ("submission_1: {':created_at': 'yesterday'}\n", "submission_1.:created_at"),
        ("submission_1: [1, 2]\n", "submission_1"),
        ("submission_1: {':submitters': [{':name': !!binary aGk=}]}\n", "submission_1"),
    ],
)
def test_a_field_of_the_wrong_type_is_a_usage_error_naming_it(tmp_path, text, field):
    path = write(tmp_path / "submission_metadata.yml", text)
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert str(path) in caught.value.message
    assert field in caught.value.message, caught.value.message


@pytest.mark.parametrize(
    ("field", "plain"),
    [
        (":sid", "01003"),  # YAML 1.1 octal: 515
        (":sid", "0x1F"),
        (":sid", "1_000"),
        (":sid", "1e3"),
        (":sid", "+42"),
        (":sid", "12:30"),  # sexagesimal: 750
        (":name", "No"),  # a boolean
        (":name", "2024"),
        (":email", "3.5"),
    ],
)
def test_an_unquoted_number_or_boolean_is_read_as_the_text_it_is(tmp_path, field, plain):
    """Every field read here is text: resolved, an unquoted SID 01003 became the student 515
    and a student named No could not be read at all."""
    text = f"submission_1:\n  :submitters:\n  - {field}: {plain}\n"
    found = gradescope.read_metadata(write(tmp_path / "submission_metadata.yml", text))
    person = found["submission_1"][0][0]
    assert getattr(person, field[1:]) == plain


plain_scalars = st.text(string.ascii_letters + string.digits + "._+-:", min_size=1, max_size=12)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plain=plain_scalars)
def test_any_unquoted_sid_is_read_exactly_as_written(tmp_path, plain):
    """Whatever YAML would resolve an unquoted scalar to (int, float, bool, a time), the SID
    is the characters written; only YAML's nulls are no SID."""
    text = f"submission_1:\n  :submitters:\n  - :sid: {plain}\n"
    try:
        resolved = yaml.safe_load(text)["submission_1"][":submitters"][0][":sid"]
    except (yaml.YAMLError, TypeError, KeyError):
        return  # not a plain scalar where the SID goes ("a: b", "-", say)
    if isinstance(resolved, (list, dict)):
        return
    found = gradescope.read_metadata(write(tmp_path / "submission_metadata.yml", text))
    sid = found["submission_1"][0][0].sid
    assert sid == ("" if plain in ("~", "null", "Null", "NULL") else plain)


@pytest.mark.parametrize(
    "data",
    [b"- 1\n- 2\n", b"\xff\xfe not utf-8", b"a: [" * 200, b"{a: 1, a: 2}\n", b"key: 'open"],
)
def test_a_file_that_is_not_metadata_is_a_usage_error(tmp_path, data):
    path = write(tmp_path / "submission_metadata.yml", data)
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert str(path) in caught.value.message


def test_grade_batch_on_a_wrong_typed_export_exits_2_with_one_error_line(tmp_path):
    export = tmp_path / "export"
    write(export / "submission_metadata.yml", "submission_1: {':submitters': 5}\n")
    write(export / "submission_1" / "exercise-90.py", code("x"))
    done = run_cli(
        "batch", str(export), "--out", str(tmp_path / "out"), "--exercises", "90", home=PROBE_HOME
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("Error:") == 1 and "submission_1.:submitters" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()


# -- generated metadata ----------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(string.printable, max_size=12), inner, max_size=4)
    ),
    max_leaves=25,
)
keys = st.sampled_from([":submitters", ":name", ":sid", ":email", ":created_at", "submitters"])
records = st.dictionaries(keys, values, max_size=5)
person = st.fixed_dictionaries(
    {},
    optional={
        ":name": st.one_of(st.text(max_size=20), values),
        ":sid": st.one_of(st.text(max_size=8), st.integers(), values),
        ":email": st.one_of(st.text(max_size=20), values),
    },
)
shaped = st.fixed_dictionaries(
    {":submitters": st.one_of(st.lists(person, max_size=3), values)},
    optional={":created_at": st.one_of(st.just("2026-12-01 10:00:00.000000000 -08:00"), values)},
)
documents = st.dictionaries(st.text(max_size=20), st.one_of(shaped, records, values), max_size=4)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=st.one_of(documents, values))
def test_generated_metadata_is_read_or_refused_as_a_usage_error(tmp_path, document):
    path = tmp_path / "submission_metadata.yml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    try:
        found = gradescope.read_metadata(path)
    except UsageError as exc:
        assert str(path) in exc.message
        return
    for people, when in found.values():
        for p in people:
            assert all(
                isinstance(v, str) and len(v) <= gradescope.MAX_NAME for v in vars(p).values()
            )
        assert when is None or when.tzinfo is not None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300))
def test_generated_bytes_are_read_or_refused_as_a_usage_error(tmp_path, data):
    path = tmp_path / "submission_metadata.yml"
    path.write_bytes(data)
    try:
        gradescope.read_metadata(path)
    except UsageError as exc:
        assert str(path) in exc.message


# -- the autograder's submission_metadata.json -------------------------------------------------

run_documents = st.fixed_dictionaries(
    {},
    optional={
        "id": values,
        "created_at": st.one_of(st.just("2026-11-30T14:32:10.123456-08:00"), values),
        "assignment": st.one_of(
            st.fixed_dictionaries({}, optional={"due_date": values, "late_due_date": values}),
            values,
        ),
        "users": st.one_of(
            st.lists(person.map(lambda p: {k[1:]: v for k, v in p.items()})), values
        ),
    },
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=st.one_of(run_documents, values))
def test_generated_run_metadata_never_fails_a_grading(tmp_path, document):
    """Gradescope's per-submission metadata: whatever its shape, reading it gives metadata
    (empty where it is not as documented), never an exception."""
    path = tmp_path / "submission_metadata.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    found = gradescope.read_run_metadata(path)
    assert isinstance(found, gradescope.RunMetadata)
    for user in found.users:
        assert all(isinstance(v, str) for v in (user.name, user.sid, user.email))


def test_run_metadata_of_the_wrong_type_is_no_metadata(tmp_path):
    path = write(tmp_path / "submission_metadata.json", json.dumps({"users": 5}))
    assert gradescope.read_run_metadata(path) == gradescope.RunMetadata()


def test_a_time_rails_wrote_as_a_time_with_zone_is_read_from_its_utc(tmp_path):
    """ActiveSupport::TimeWithZone's YAML is a mapping (utc, zone, time): its utc is the
    submission time (one such record refused the whole class)."""
    text = (
        "submission_1:\n"
        "  :submitters:\n"
        "  - :name: Jane Doe\n"
        "    :sid: '1001'\n"
        "  :created_at: !ruby/object:ActiveSupport::TimeWithZone\n"
        "    utc: 2026-12-01 18:30:00.000000000 Z\n"
        "    zone: !ruby/object:ActiveSupport::TimeZone\n"
        "      name: America/Los_Angeles\n"
        "    time: 2026-12-01 10:30:00.000000000 Z\n"
    )
    found = gradescope.read_metadata(write(tmp_path / "submission_metadata.yml", text))
    people, when = found["submission_1"]
    assert people[0].sid == "1001"
    assert when is not None and when.isoformat() == "2026-12-01T18:30:00+00:00"


# -- a key written twice ---------------------------------------------------------------------

_KEY_LINE = re.compile(
    r"^(?P<indent> *)(?P<dash>- )?(?P<key>:?[A-Za-z_][A-Za-z0-9_]*):(?P<value> .*)?$"
)
_KEY_LINES = [i for i, line in enumerate(GRADESCOPE_METADATA.splitlines()) if _KEY_LINE.match(line)]


def _doubled(text: str, index: int, value: str) -> tuple[str, str]:
    """``text`` with the key of line ``index`` written a second time in the same mapping,
    holding ``value``; and that key."""
    lines = text.splitlines()
    m = _KEY_LINE.match(lines[index])
    assert m is not None
    column = len(m["indent"]) + (2 if m["dash"] else 0)
    again = " " * column + f"{m['key']}: {json.dumps(value)}"
    # after a "- key: value" line (still inside that item), else before the line (a block
    # opener's children must stay its own)
    lines.insert(index + 1 if m["dash"] else index, again)
    return "\n".join(lines) + "\n", m["key"]


def test_a_submission_written_twice_is_refused_not_the_last_kept(tmp_path):
    """YAML keeps the last of two equal keys: the first submission_1002 record vanished and
    its folder was graded as the second's student, without a word."""
    doubled = GRADESCOPE_METADATA.replace(
        "submission_1003:\n",
        "submission_1002:\n  :submitters:\n  - :name: Eve Mallory\n    :sid: '1099'\n"
        "    :email: eve@example.edu\nsubmission_1003:\n",
    )
    path = write(tmp_path / "submission_metadata.yml", doubled)
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert str(path) in caught.value.message
    assert "duplicate key 'submission_1002'" in caught.value.message


def test_a_field_written_twice_in_one_submitter_is_refused(tmp_path):
    doubled = GRADESCOPE_METADATA.replace(
        "    :sid: '1001'\n", "    :sid: '1001'\n    :sid: '1003'\n"
    )
    path = write(tmp_path / "submission_metadata.yml", doubled)
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert "duplicate key ':sid'" in caught.value.message


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    index=st.sampled_from(_KEY_LINES),
    value=st.text(string.ascii_letters + string.digits + " '.:-@", max_size=20),
)
def test_any_key_written_twice_anywhere_is_refused(tmp_path, index, value):
    """Every mapping of the export, at every level (the submissions, a submission's fields, a
    submitter's), refuses a key it already has, whatever the second value."""
    doubled, key = _doubled(GRADESCOPE_METADATA, index, value)
    path = tmp_path / "submission_metadata.yml"
    path.write_text(doubled, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        gradescope.read_metadata(path)
    assert str(path) in caught.value.message
    assert f"duplicate key {key!r}" in caught.value.message


def test_grade_batch_on_an_export_with_a_doubled_submission_exits_2(tmp_path):
    export = tmp_path / "export"
    write(
        export / "submission_metadata.yml",
        "submission_1:\n  :submitters:\n  - :name: Cy\n    :sid: '3'\n"
        "submission_1:\n  :submitters:\n  - :name: Dee\n    :sid: '4'\n",
    )
    write(export / "submission_1" / "exercise-90.py", code("x"))
    done = run_cli(
        "batch", str(export), "--out", str(tmp_path / "out"), "--exercises", "90", home=PROBE_HOME
    )
    assert done.returncode == 2, done.stderr
    assert "duplicate key 'submission_1'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()
