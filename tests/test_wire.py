"""The strict reader kit (grader.wire): every shape of outside data is either read, bounded
and typed, or refused with a WireError naming the source and the field; nothing else escapes."""

from __future__ import annotations

import json
import math
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import wire
from grader.wire import Fields, WireError

# every code point, lone surrogates included (hypothesis leaves them out unless asked)
CHARS = st.characters(codec=None) | st.characters(categories=["Cs"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(CHARS, max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(CHARS, max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def _json_bytes() -> st.SearchStrategy[bytes]:
    """JSON text built from hostile parts: deep brackets, NaN, surrogate escapes, bad bytes."""
    part = st.sampled_from(
        [
            b"[",
            b"]",
            b"{",
            b"}",
            b'"a":',
            b'"\\ud800"',
            b"NaN",
            b"1e999",
            b",",
            b"1",
            b"\xff",
            b'"x"',
        ]
    )
    return st.one_of(st.binary(max_size=80), st.lists(part, max_size=60).map(b"".join))


@given(_json_bytes())
def test_loads_reads_or_refuses_any_bytes(data: bytes) -> None:
    try:
        value = wire.loads(data, source="x.json", max_depth=8)
    except WireError as exc:
        assert str(exc).startswith("x.json: ")
        str(exc).encode("utf-8")
        return
    json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")


@given(JSON_VALUES)
def test_dumps_then_loads_round_trips_and_always_encodes(value: object) -> None:
    try:
        text = wire.dumps(value)
    except ValueError:  # NaN and infinity are not JSON: dumps refuses them
        assert "nan" in repr(value) or "inf" in repr(value)
        return
    text.encode("utf-8")
    again = wire.loads(text)
    assert wire.dumps(again) == text


def test_loads_refuses_what_json_does_not_say() -> None:
    for data, problem in [
        (b'{"a": 1, "a": 2}', "appears twice"),
        (b"[NaN]", "NaN"),
        (b"[-Infinity]", "Infinity"),
        (b"[" * 5000 + b"]" * 5000, "nested"),
        (b"\xff\xfe", "not UTF-8"),
        (b"x" * 101, "larger than 100 bytes"),
    ]:
        with pytest.raises(WireError, match=problem):
            wire.loads(data, max_bytes=100 if data.startswith(b"x") else 1 << 20)


def test_loads_replaces_lone_surrogates_in_keys_and_values() -> None:
    value = wire.loads(b'{"\\udc80": ["\\ud800"]}')
    assert value == {"\ufffd": ["\ufffd"]}


def _outcome(read):
    try:
        return ("value", read())
    except WireError as exc:
        return ("refused", exc.problem)


@given(
    JSON_VALUES,
    st.integers(1, 12),
    st.booleans(),
    st.booleans(),
    # a lone surrogate, an escaped backslash before "ud800", brackets, a surrogate pair
    st.sampled_from(["", "\udc80x", "\\ud800", "[[[[[[[[[[[[[[[[[[[[", "\ud83d\ude00"]),
)
def test_loads_reads_exactly_what_the_complete_walk_reads(
    value: object, depth: int, ascii: bool, as_bytes: bool, padding: str
) -> None:
    """Text it reads without walking it (no surrogate escape, fewer brackets than the depth
    allowed) gives the same value, or the same refusal, as the walk that replaces lone
    surrogates and checks the depth, whatever the text holds."""
    try:
        text = json.dumps({"v": value, "p": padding}, ensure_ascii=ascii, allow_nan=False)
    except ValueError:  # NaN and infinity
        return
    try:
        data: bytes | str = text.encode("utf-8") if as_bytes else text
    except UnicodeEncodeError:  # a lone surrogate written out raw: only a str can hold it
        data = text
    complete = _outcome(lambda: wire._encodable(json.loads(text), depth))
    assert _outcome(lambda: wire.loads(data, max_depth=depth)) == complete


def test_loads_names_its_own_error_type() -> None:
    class MyError(WireError):
        pass

    with pytest.raises(MyError, match=r"^s\.json: "):
        wire.loads(b"[", source="s.json", cls=MyError)


@given(st.text(CHARS, max_size=200) | st.binary(max_size=200))
def test_load_yaml_reads_or_refuses_any_text(data: str | bytes) -> None:
    try:
        wire.load_yaml(data, source="m.yml")
    except WireError as exc:
        assert str(exc).startswith("m.yml: ")


@given(st.text(CHARS, max_size=200) | st.binary(max_size=200))
def test_load_yaml_refuses_in_one_line(data: str | bytes) -> None:
    """Every refusal is one line: an instructor's file is refused with one ``Error:`` line."""
    try:
        wire.load_yaml(data, source="m.yml")
    except WireError as exc:
        assert "\n" not in str(exc) and "<unicode string>" not in str(exc)


# Lines of YAML, each ended as some editor ends it
_YAML_LINES = st.lists(
    st.tuples(
        st.sampled_from(["a: 1", "- x", "b: 'q'", "# note", "", "  c: [1, 2]", "d: é"]),
        st.sampled_from(["\n", "\r\n", "\r", "\x85", "\u2028"]),
    ),
    max_size=8,
).map(lambda lines: "".join(text + end for text, end in lines))


@given(
    before=_YAML_LINES,
    indent=st.text(" ", max_size=3),
    char=st.sampled_from(["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x9b", "\ufffe", "\uffff"]),
)
def test_a_character_yaml_refuses_is_named_with_its_line_and_column(
    before: str, indent: str, char: str
) -> None:
    """A NUL or a control code in an instructor's YAML was refused with the parser's own two
    lines ("unacceptable character #x0000 ... in "<unicode string>", position 50"): no line to
    look at, and an ``Error:`` of two lines. It is now one line with the line and column."""
    text = before + indent + "k: v" + char + "\n"
    line = len(re.split("\r\n|[\r\n\x85\u2028]", before))
    try:
        wire.load_yaml(text, source="m.yml")
    except WireError as exc:
        message = str(exc)
    else:
        raise AssertionError("loaded")
    assert "\n" not in message, message
    where = f"at line {line}, column {len(indent) + 5}: the character U+{ord(char):04X}"
    assert where in message, message


_DIGITS = st.integers(0, 99).map("{:02d}".format)
# What YAML's resolver takes for a timestamp (and the constructor then builds a datetime of):
# a date, with a time and a zone or not, whatever the numbers in it.
_TIMESTAMPS = st.builds(
    lambda year, month, day, time, zone: f"{year:04d}-{month}-{day}{time}{zone}",
    st.integers(0, 9999),
    _DIGITS,
    _DIGITS,
    st.just("") | st.builds("T{}:{}:{}".format, _DIGITS, _DIGITS, _DIGITS),
    st.sampled_from(["", "Z", "+00:00", "-99:99", " +1"]),
)


@given(value=_TIMESTAMPS, nested=st.booleans())
def test_load_yaml_reads_or_refuses_any_timestamp(value: str, nested: bool) -> None:
    """A date the resolver accepts and the calendar does not (February 30th, month 13, year
    0) is a WireError naming its line and value, never the constructor's ValueError."""
    text = f"name: x\nitems:\n  - [1, {{due: {value}}}]\n" if nested else f"due: {value}\n"
    try:
        wire.load_yaml(text, source="a.yaml")
    except WireError as exc:
        assert str(exc).startswith(f"a.yaml: at line {3 if nested else 1}: {value!r} is not a")


@pytest.mark.parametrize(
    "text", ["a: !!timestamp x\n", "a: !!int x\n", "a: !!float x\n", "a: !!map x\n"]
)
def test_load_yaml_refuses_a_tagged_value_its_constructor_cannot_build(text: str) -> None:
    with pytest.raises(WireError, match=r"^a\.yaml: at line 1: 'x' is not a valid value"):
        wire.load_yaml(text, source="a.yaml", tags=True)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: &x [1, 2]\nb: *x\n", "alias or anchor"),
        ("a: !!python/object/apply:os.system [ls]\n", "explicit tag"),
        ("a: !custom 3\n", "explicit tag"),
        ("a: !!binary aGVsbG8=\n", "explicit tag"),
        ("a: 1\na: 2\n", "duplicate key"),
        ("a: " + "[" * 40 + "]" * 40 + "\n", "nested more than 32"),
        ("a: [1\n", "invalid YAML"),
    ],
)
def test_load_yaml_refuses_amplifiers_tags_and_depth(text: str, problem: str) -> None:
    with pytest.raises(WireError, match=problem):
        wire.load_yaml(text, source="m.yml")


def test_load_yaml_allows_aliases_and_tags_only_when_asked() -> None:
    assert wire.load_yaml("a: &x [1]\nb: *x\n", aliases=True) == {"a": [1], "b": [1]}
    assert wire.load_yaml("a: !!str 3\n", tags=True) == {"a": "3"}


def test_load_yaml_merges_merge_keys() -> None:
    """`<<: *defaults` (YAML's merge key, the common use of anchors) said "could not determine
    a constructor for the tag 'tag:yaml.org,2002:merge'". It merges, and the keys written
    beside it win; a key written twice is still refused, in a merged mapping too."""
    text = "base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\n"
    assert wire.load_yaml(text, aliases=True)["item"] == {"x": 1, "y": 3}
    assert wire.load_yaml("<<: [{a: 1}, {a: 2, b: 2}]\nc: 3\n") == {"a": 1, "b": 2, "c": 3}
    for doubled in (
        "<<: {a: 1, a: 2}\n",
        "<<: [{a: 1}, {b: 1, b: 2}]\n",
        "<<: {a: 1}\nb: 1\nb: 2\n",
    ):
        with pytest.raises(WireError, match="duplicate key"):
            wire.load_yaml(doubled)
    with pytest.raises(WireError, match="alias"):
        wire.load_yaml(text)  # still no aliases where they are not allowed
    with pytest.raises(WireError, match="mapping or list of mappings"):
        wire.load_yaml("<<: 5\n")


_KEYS = st.lists(st.sampled_from("abcd"), max_size=4)


@given(sources=st.lists(_KEYS, max_size=3), own=_KEYS, listed=st.booleans())
def test_load_yaml_merge_keys_merge_as_yaml_says(
    sources: list[list[str]], own: list[str], listed: bool
) -> None:
    """Any mix of merged mappings and keys of its own: YAML's result (the first merged
    mapping wins among them, the mapping's own keys over all) or a duplicate key refused."""

    def mapping(keys: list[str], tag: int) -> str:
        return "{" + ", ".join(f"{k}: {tag}" for k in keys) + "}"

    parts = [mapping(keys, i) for i, keys in enumerate(sources)]
    merge = ("[" + ", ".join(parts) + "]") if listed or len(parts) != 1 else parts[0]
    text = (f"<<: {merge}\n" if parts else "") + "".join(f"{k}: own\n" for k in own)
    doubled = any(len(set(keys)) != len(keys) for keys in [*sources, own])
    try:
        loaded = wire.load_yaml(text or "{}")
    except WireError as exc:
        assert doubled, exc
        assert "duplicate key" in str(exc)
        return
    assert not doubled
    expected: dict[str, object] = {}
    for i, keys in reversed(list(enumerate(sources))):
        expected.update(dict.fromkeys(keys, i))
    expected.update(dict.fromkeys(own, "own"))
    assert loaded == expected


@settings(max_examples=40, deadline=None)
@given(keys=st.integers(1, 60), merges=st.integers(1, 60))
def test_merges_are_bounded_by_the_keys_they_copy(keys: int, merges: int) -> None:
    """Each `{<<: *big}` copies every key of `big` before any value is counted: 40 KiB of them
    took 18 s to load, 4 MiB hours. What a document merges counts against the same budget as
    what its aliases expand to (here budgets of 1000)."""
    text = "b: &b {" + ", ".join(f"k{i}: 1" for i in range(keys)) + "}\nl:\n"
    text += "- {<<: *b}\n" * merges
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "MAX_YAML_VALUES", 1000)
        patch.setattr(wire, "MAX_YAML_MERGED", 1000)
        if keys * merges > 1000:
            with pytest.raises(WireError, match="keys merged"):
                wire.load_yaml(text, aliases=True)
        elif 2 + keys + merges + keys * merges > 1000:  # every value, once loaded
            with pytest.raises(WireError, match="aliases"):
                wire.load_yaml(text, aliases=True)
        else:
            loaded = wire.load_yaml(text, aliases=True)
            assert loaded["l"] == [loaded["b"]] * merges


def test_a_merge_bomb_is_refused_in_time() -> None:
    text = (
        "b: &b {" + ", ".join(f"k{i}: 1" for i in range(2000)) + "}\nl:\n" + "- {<<: *b}\n" * 2000
    )
    started = time.monotonic()
    with pytest.raises(WireError, match="keys merged"):
        wire.load_yaml(text, aliases=True)
    assert time.monotonic() - started < 5  # 18 s before, unbounded for larger files


def test_a_billion_laughs_is_refused_before_it_expands() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    with pytest.raises(WireError, match="alias"):
        wire.load_yaml("\n".join(lines))


def _laughs(levels: int, width: int) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=12), st.integers(min_value=2, max_value=12))
def test_aliases_an_instructor_may_use_are_bounded_once_expanded(levels: int, width: int) -> None:
    """Aliases are allowed in an instructor's files, but a few hundred bytes of them expanded
    to billions of values, and reading a course hung on them (grade list, grade show): what
    expands past the budget is refused, what stays within it reads whole."""
    text = _laughs(levels, width)
    # l0 holds width values; each l(i) holds width values, each a whole l(i-1): every alias
    # counted where it is used (the top mapping's levels + 1 entries too)
    held = [width]
    for _ in range(levels):
        held.append(width + width * held[-1])
    expanded = levels + 1 + sum(held)
    if expanded > wire.MAX_YAML_VALUES:
        with pytest.raises(WireError, match="aliases"):
            wire.load_yaml(text, aliases=True)
    else:
        loaded = wire.load_yaml(text, aliases=True)
        assert len(loaded[f"l{levels}"]) == width


def test_fields_checks_keys_types_and_ranges() -> None:
    data = {"n": 3, "x": 1, "flag": True, "name": "ab", "items": [1, 2], "sub": {"k": "v"}}
    f = Fields(data, "rec", required=("n", "x", "flag", "name", "items"), optional=("sub", "z"))
    assert f.integer("n", low=0, high=3) == 3
    assert f.number("x") == 1.0 and type(f.number("x")) is float
    assert f.boolean("flag") is True
    assert f.string("name", max_len=2) == "ab"
    assert [v for _, v in f.sequence("items", max_items=2)] == [1, 2]
    assert f.fields("sub", required=("k",)).string("k") == "v"
    assert f.string("z", "default") == "default"
    assert f.fields("missing-ok", default=None) is None
    for read, problem in [
        (lambda: f.integer("flag"), "rec.flag': expected a whole number, got a boolean"),
        (lambda: f.integer("n", high=2), "out of range"),
        (lambda: f.number("x", ints=False), "expected a number, got a whole number"),
        (lambda: f.string("name", max_len=1), "longer than 1"),
        (lambda: f.sequence("items", max_items=1), "more than 1 items"),
        (lambda: f.fields("sub", required=("j",)), "rec.sub.j': missing"),
        (lambda: f.boolean("name"), "expected true or false"),
    ]:
        with pytest.raises(WireError, match=problem):
            read()
    with pytest.raises(WireError, match=r"rec\.y': unknown field"):
        Fields({"y": 1}, "rec", optional=("x",))
    with pytest.raises(WireError, match=r"rec\.x': missing"):
        Fields({}, "rec", required=("x",))
    with pytest.raises(WireError, match="expected a mapping, got a list"):
        Fields([], "rec")
    with pytest.raises(WireError, match="not a name"):
        Fields({1: 2}, "rec")


def test_numbers_are_finite() -> None:
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(WireError, match="finite"):
            wire.number(bad, "x")


@given(JSON_VALUES)
def test_plain_copies_plain_data_or_refuses_it(value: object) -> None:
    try:
        copy = wire.plain(value, "data", max_depth=3)
    except WireError as exc:
        assert "data" in str(exc)
        return
    wire.dumps(copy).encode("utf-8")


@given(st.dictionaries(st.text(max_size=5), JSON_VALUES, max_size=5))
def test_fields_reads_or_refuses_any_mapping(data: dict) -> None:
    try:
        f = Fields(data, "m", required=("a",), optional=("b",))
        f.integer("a", low=0)
        f.string("b", "", max_len=3)
    except WireError as exc:
        assert "field 'm" in str(exc)


def test_utf8_drops_a_bom_without_a_codec_imported_on_first_use():
    """``wire.utf8`` reads what ``utf-8-sig`` would, with the always-built-in codec only: a
    server or child whose imports are closed still parses JSON (``loads``) and YAML."""
    from grader.wire import utf8

    assert utf8(b"\xef\xbb\xbf{}") == "{}" == utf8(b"{}")
    with pytest.raises(UnicodeDecodeError) as caught:
        utf8(b"\xef\xbb\xbfa\xff")
    assert caught.value.start == 4  # counted from the start of the bytes given
    assert wire.loads(b"\xef\xbb\xbf[1]") == [1]


# whole numbers of any size, up to far past what Python turns into text (4300 digits)
HUGE_INTS = st.integers() | st.builds(
    lambda exponent, sign: sign * 16**exponent, st.integers(0, 5000), st.sampled_from([1, -1])
)


@given(HUGE_INTS, st.sampled_from([wire.integer, wire.number]))
def test_a_field_of_any_whole_number_is_read_or_refused(value: int, read) -> None:
    try:
        read(value, "x", low=0, high=10)
    except WireError as exc:
        assert "set_int_max_str_digits" not in str(exc)
        assert len(str(exc)) < 200


@given(st.integers(1, 6000), st.sampled_from(["", "-"]))
def test_loads_refuses_a_number_too_long_in_its_own_words(digits: int, sign: str) -> None:
    data = f'{{"n": {sign}{"9" * digits}}}'.encode()
    try:
        value = wire.loads(data)
    except WireError as exc:
        assert digits > wire.MAX_INT_DIGITS
        assert f"{digits}-digit number" in str(exc)
        return
    assert digits <= wire.MAX_INT_DIGITS and len(str(value["n"])) == digits + len(sign)


@given(
    st.sampled_from(["{}", "0x{}", "0{}", "0b{}", "-{}", "1_{}", "1:{}"]),
    st.integers(1, 6000),
)
def test_load_yaml_reads_or_refuses_whole_numbers_of_any_notation(notation: str, digits: int):
    """Decimal, hexadecimal, octal, binary, with underscores or sexagesimal: a whole number
    is read, or refused in the reader's words (never Python's own error on long numbers)."""
    fill = {"0{": "7", "0b": "1", "1:": "5"}.get(notation[:2], "1")
    text = "a: " + notation.format(fill * digits if notation != "1:{}" else ":".join("5" * digits))
    try:
        value = wire.load_yaml(text)
    except WireError as exc:
        assert "digits" in str(exc) and "set_int_max_str_digits" not in str(exc)
        return
    assert type(value["a"]) is int and abs(value["a"]) < 10**wire.MAX_INT_DIGITS


def _depth(value: object) -> int:
    """How deep lists and mappings nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


@settings(max_examples=40, deadline=None)
@given(
    links=st.integers(min_value=1, max_value=120),
    max_depth=st.integers(min_value=2, max_value=40),
    mapping=st.booleans(),
)
def test_aliases_cannot_nest_deeper_than_the_depth_cap(
    links: int, max_depth: int, mapping: bool
) -> None:
    """The depth cap was counted on the text's brackets only: each alias of an alias nests
    one level more, so 1300 lines of ``aN: &aN [*aN-1]`` read as a value 1300 deep, which
    every recursive reader after it (json.dumps, copy.deepcopy) fails on with a
    RecursionError. The value read nests no deeper than the cap, or it is refused."""
    wrap = "{{k: *a{}}}" if mapping else "[*a{}]"
    lines = ["a0: &a0 [1]"]
    lines += [f"a{i}: &a{i} {wrap.format(i - 1)}" for i in range(1, links + 1)]
    try:
        loaded = wire.load_yaml("\n".join(lines), aliases=True, max_depth=max_depth)
    except WireError as exc:
        assert "deep" in exc.problem
        assert links + 2 > max_depth
    else:
        assert _depth(loaded) <= max_depth


def test_an_alias_of_itself_is_refused_at_once() -> None:
    """``&a [*a]`` is a list that holds itself: it was walked a million times over before its
    count ran out ("nested more than 1000000 deep"). (A mapping that holds itself, YAML's
    loader refuses itself.)"""
    for text in ("a: &a [*a]\n", "- &a [x, [y, *a]]\n", "a: &a [{b: *a}]\n"):
        with pytest.raises(WireError, match=f"more than {wire.MAX_DEPTH} deep"):
            wire.load_yaml(text, aliases=True)


_INDENTED = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(["k: v", "- x", "k:", "n: 1"])),
    min_size=1,
    max_size=6,
)


@given(lines=_INDENTED, at=st.integers(0, 5), tabs=st.integers(1, 2))
def test_a_tab_that_yaml_refuses_is_named_as_a_tab(lines, at, tabs):
    """A tab where YAML takes spaces (an editor's indentation) was refused as "found
    character that cannot start any token": nothing said the character was a tab. Where
    YAML refuses a line a tab begins, the error says tab, with that line."""
    text = [" " * (2 * depth) + body for depth, body in lines]
    at %= len(text)
    text[at] = "\t" * tabs + text[at].lstrip(" ")
    try:
        wire.load_yaml("\n".join(text) + "\n", source="m.yml")
    except WireError as exc:
        if f"at line {at + 1}, column 1:" in str(exc):
            assert "tab" in str(exc), str(exc)


@given(
    first=st.sampled_from(["a: 1\n", "- x\n", "", "# c\n", "a: 1\n...\n"]),
    second=st.sampled_from(["b: 2\n", "- y\n", "x\n", "{}\n"]),
    marker=st.sampled_from(["---\n", "--- \n", "---\r\n"]),
)
def test_a_second_yaml_document_is_named_as_one(first, second, marker):
    """Two documents in one file (a --- line in the middle, as pasted from another file) were
    refused with YAML's "but found another document". The error says a second document, and
    how to fix it."""
    text = first + marker + second
    try:
        wire.load_yaml(text, source="m.yml")
    except WireError as exc:
        assert "a second document" in str(exc) and exc.fix, str(exc)
    else:
        assert not first.strip() or first.startswith("#")  # only the second holds anything
