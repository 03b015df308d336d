"""The tutorial sections that feedback cites: grader/sections.yaml and its grammar."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from grader import sections
from grader.errors import SpecError
from grader.sections import Ref, Section, TeachesSyntaxError, describe, parse, unknown
from grader.yamlfields import read_yaml

ROOT = Path(__file__).resolve().parent.parent
# Excerpts of the seed tutorials that sections.yaml names: everything of each seed that could be
# a heading (tests/fixtures/seeds/excerpt.py says what is kept, and makes them again).
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def catalog() -> sections.SectionCatalog:
    return sections.load()


def seed_texts() -> dict[str, str]:
    """Tutorial id -> the excerpt of its seed (tests/fixtures/seeds/000.txt, ...)."""
    texts = {path.stem: path.read_text(encoding="utf-8") for path in SEEDS.glob("[0-9]*.txt")}
    assert texts, f"no seed excerpts in {SEEDS}"
    return texts


# ---------------------------------------------------------------------------------------------
# The data file


def test_the_file_loads(catalog):
    assert sorted(catalog.tutorials) == ["000", "001", "003"]
    assert sorted(catalog.sections) == ["000", "001", "003"]
    assert {t: len(numbers) for t, numbers in catalog.sections.items()} == {
        "000": 40,
        "001": 42,
        "003": 25,
    }
    assert sections.load() is catalog  # cached


def test_chapters_and_subsections_are_numbered_without_gaps(catalog):
    for tutorial, numbers in catalog.sections.items():
        chapters = [n for n in numbers if "." not in n]
        assert chapters == [str(i) for i in range(1, len(chapters) + 1)], tutorial
        for chapter in chapters:
            subs = [n for n in numbers if n.startswith(f"{chapter}.")]
            assert subs == [f"{chapter}.{i}" for i in range(1, len(subs) + 1)], (tutorial, chapter)


def test_every_title_is_in_both_languages(catalog):
    texts = [*catalog.tutorials.values()]
    texts += [text for numbers in catalog.sections.values() for text in numbers.values()]
    for text in texts:
        assert text.en.strip() and text.zh.strip(), text
        assert text.en == text.en.strip() and text.zh == text.zh.strip(), text
        assert not HAN.search(text.en), f"untranslated: {text.en!r}"
    for text in catalog.tutorials.values():
        assert HAN.search(text.zh), text


def test_chinese_titles_are_the_tutorials_words(catalog):
    """Each heading appears in its seed as "7.3 <zh>" ("7. <zh>" for a chapter); in a seed with
    line breaks it also ends its line, so a title is neither cut short nor run on."""
    texts = seed_texts()
    assert set(texts) == set(catalog.sections)
    for tutorial, numbers in catalog.sections.items():
        text = texts[tutorial]
        has_lines = text.count("\n") > 10  # 001 has lost its line breaks
        for number, title in numbers.items():
            heading = f"{number}{'' if '.' in number else '.'} {title.zh}"
            assert heading in text, f"{tutorial} §{number}: {heading!r} is not in the seed"
            if has_lines:
                assert re.search(re.escape(heading) + r"[ \t]*(\n|$)", text), (
                    f"{tutorial} §{number}: {heading!r} is not a whole line of the seed"
                )


def test_no_heading_of_the_seeds_is_missing(catalog):
    """After each chapter's last subsection (and after the last chapter) the seed has no further
    heading: a heading run on after a code line ("(3,)2.4 广播机制") is still found."""
    texts = seed_texts()
    for tutorial, numbers in catalog.sections.items():
        text = texts[tutorial]
        chapters = [n for n in numbers if "." not in n]
        for chapter in chapters:
            last = max(
                (int(n.split(".")[1]) for n in numbers if n.startswith(f"{chapter}.")), default=0
            )
            following = re.compile(
                rf"(?<![\d.]){chapter}\.{last + 1}(?![\d.]) ?[\u4e00-\u9fffA-Za-z]"
            )
            found = following.search(text)
            assert not found, f"{tutorial}: a heading {text[found.start() : found.start() + 30]!r}"
        after = re.compile(rf"(?<![\d.]){len(chapters) + 1}\. ?[\u4e00-\u9fffA-Za-z]")
        found = after.search(text)
        assert not found, f"{tutorial}: a chapter {text[found.start() : found.start() + 30]!r}"


# ---------------------------------------------------------------------------------------------
# Every reference in the repository resolves


def teaches_strings() -> list[tuple[str, str]]:
    """(where, teaches string) for every `teaches` of the diagnoses and the exercises."""
    found = []
    path = ROOT / "grader" / "diagnoses.yaml"
    for i, entry in enumerate(read_yaml(path)["diagnoses"]):
        if entry.get("teaches"):
            found.append((f"grader/diagnoses.yaml: {entry.get('id', i)}", entry["teaches"]))
    for path in sorted(ROOT.glob("exercises/*/exercise.yaml")):
        for item in read_yaml(path).get("teaches") or ():
            found.append((f"{path.relative_to(ROOT)}: teaches", item))
    return found


def test_the_repository_has_teaches_references():
    assert len(teaches_strings()) > 50


def test_every_teaches_string_parses():
    for where, teaches in teaches_strings():
        try:
            assert parse(teaches), (where, teaches)
        except TeachesSyntaxError as exc:
            pytest.fail(f"{where}: {exc}")


def test_every_teaches_reference_names_a_section(catalog):
    missing = [
        f"{where}: {ref}" for where, teaches in teaches_strings() for ref in unknown(teaches)
    ]
    assert not missing, "references to sections that do not exist:\n" + "\n".join(missing)


# ---------------------------------------------------------------------------------------------
# The grammar


@pytest.mark.parametrize(
    ("teaches", "expected"),
    [
        ("", []),
        ("   ", []),
        ("000 §7.3", ["000 §7.3"]),
        ("001 §7", ["001 §7"]),
        (
            "000 §2.3, 001 §5.2, §7.2, 003 §2.2",
            ["000 §2.3", "001 §5.2", "001 §7.2", "003 §2.2"],
        ),
        ("003 §3-4", ["003 §3", "003 §4"]),
        ("003 §3.1-3.2", ["003 §3.1", "003 §3.2"]),
        ("000 §6.1-6.3, §8", ["000 §6.1", "000 §6.2", "000 §6.3", "000 §8"]),
        ("003 §2.2, §3-4, 003 §3.1-3.2", ["003 §2.2", "003 §3", "003 §4", "003 §3.1", "003 §3.2"]),
        ("000§2.3,001§5.2", ["000 §2.3", "001 §5.2"]),
        ("  000  § 2.3 ,  §  3.1 - 3.2  ", ["000 §2.3", "000 §3.1", "000 §3.2"]),
        ("000 §2.3，001 §5.2; §7", ["000 §2.3", "001 §5.2", "001 §7"]),
        ("000 §6.1–6.2", ["000 §6.1", "000 §6.2"]),
        ("000 §07.3", ["000 §7.3"]),
        ("000 §10, §9.4-9.4", ["000 §10", "000 §9.4"]),
    ],
)
def test_parse(teaches, expected):
    assert [str(ref) for ref in parse(teaches)] == expected


def test_parse_gives_refs():
    assert parse("001 §5.2, §7") == [Ref("001", "5.2"), Ref("001", "7")]
    assert str(Ref("000", "7.3")) == "000 §7.3"


@pytest.mark.parametrize(
    "teaches",
    [
        "§7.3",  # no tutorial to continue
        "000 7.3",  # no §
        "000 §",
        "00 §7.3",
        "0000 §7.3",
        "000 §7.3,",
        "000 §7.3,, §7.2",
        "000 §7.x",
        "000 §7.3-7.1",  # backwards
        "000 §6.3-7.1",  # across chapters
        "000 §6-6.2",  # different depths
        "000 §2.3 001 §5.2",  # no separator
        "tutorial 000 §7.3",
    ],
)
def test_parse_rejects(teaches):
    with pytest.raises(TeachesSyntaxError) as info:
        parse(teaches)
    assert repr(teaches) in str(info.value)


# ---------------------------------------------------------------------------------------------
# describe and unknown


def test_describe_names_each_section_in_each_language(catalog):
    zh = describe("000 §7.3, 003 §3.1-3.2", "zh")
    assert [s.ref for s in zh] == ["000 §7.3", "003 §3.1", "003 §3.2"]
    assert zh[0] == Section(
        ref="000 §7.3",
        title="梯度累积与zero_grad的必要性",
        tutorial=catalog.tutorials["000"].zh,
    )
    en = describe("000 §7.3", "en")
    assert en[0].title == "Gradient accumulation, and why zero_grad is needed"
    assert en[0].tutorial == catalog.tutorials["000"].en
    assert describe("001 §5.2", "en")[0].title == "Changing shape: view, reshape, transpose"
    assert describe("001 §5.2", "zh")[0].title == "形状变换view、reshape、transpose"
    assert describe("001 §7", "zh")[0].title == "常见问题与排查思路"
    assert describe("", "en") == []


def test_describe_lists_each_section_once():
    refs = [s.ref for s in describe("003 §4.3, 003 §4.3-4.4, §4.3", "en")]
    assert refs == ["003 §4.3", "003 §4.4"]


def test_unknown_references_do_not_crash(catalog):
    found = describe("000 §7.3, 000 §7.9, 002 §1, §x, 003 §2.2", "en")
    assert [(s.ref, bool(s.title), bool(s.tutorial)) for s in found] == [
        ("000 §7.3", True, True),
        ("000 §7.9", False, True),  # the tutorial exists, the section does not
        ("002 §1", False, False),
        ("§x", False, False),  # does not parse: kept as written
        ("003 §2.2", True, True),
    ]
    assert [s.known for s in found] == [True, False, False, False, True]
    assert unknown("000 §7.3, 000 §7.9, 002 §1, §x, 003 §2.2") == ["000 §7.9", "002 §1", "§x"]
    assert unknown("000 §7.3, 001 §5.2, §7.2, 003 §3-4") == []
    assert unknown("") == []


def test_describe_wants_a_known_language():
    with pytest.raises(ValueError):
        describe("000 §7.3", "fr")


def test_section_is_frozen():
    section = describe("000 §7.3", "en")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        section.title = "x"  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# A malformed file fails loudly, naming the file and the field

GOOD_TOP = 'format_version: 1\ntutorials:\n  "000": {zh: 甲, en: A}\n'


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: 甲, en: A}\nextra: 1\n',
            "extra",
            "unknown key",
        ),
        ("format_version: 2\ntutorials: {}\nsections: {}\n", "format_version", "unsupported"),
        ('format_version: "1"\ntutorials: {}\nsections: {}\n', "format_version", "expected"),
        (GOOD_TOP, "sections", "missing"),
        (GOOD_TOP + "sections: []\n", "sections", "expected a mapping"),
        (
            "format_version: 1\ntutorials:\n  000: {zh: 甲, en: A}\nsections: {}\n",
            "tutorials.0",
            "quoted string",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    7.3: {zh: 甲, en: A}\n',
            'sections."000".7.3',
            "quoted",
        ),
        (GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: 甲}\n', 'sections."000"."1".en', "missing"),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: 甲, en: A, de: B}\n',
            'sections."000"."1".de',
            "unknown key",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: "", en: A}\n',
            'sections."000"."1".zh',
            "empty",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: " 甲", en: A}\n',
            'sections."000"."1".zh',
            "surrounding spaces",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1.1": {zh: 甲, en: A}\n',
            'sections."000"."1.1"',
            "missing",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "2": {zh: 乙, en: B}\n    "1": {zh: 甲, en: A}\n',
            'sections."000"."1"',
            "out of order",
        ),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1.a": {zh: 甲, en: A}\n',
            'sections."000"."1.a"',
            "not",
        ),
        (
            GOOD_TOP + 'sections:\n  "002":\n    "1": {zh: 甲, en: A}\n',
            'sections."002"',
            "not a tutorial",
        ),
        (GOOD_TOP + 'sections:\n  "000": {}\n', 'sections."000"', "non-empty"),
        (
            GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: 甲, en: A}\n    "1": {zh: 甲, en: A}\n',
            None,
            "duplicate key",
        ),
    ],
)
def test_malformed_file(tmp_path, text, field, problem):
    path = tmp_path / "sections.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        sections.load(path)
    assert info.value.path == str(path)
    assert info.value.field == field
    assert problem in info.value.problem


def test_a_minimal_file_loads(tmp_path):
    path = tmp_path / "sections.yaml"
    path.write_text(
        GOOD_TOP + 'sections:\n  "000":\n    "1": {zh: 甲, en: A}\n    "1.1": {zh: 乙, en: B}\n',
        encoding="utf-8",
    )
    catalog = sections.load(path)
    assert describe("000 §1, §1.1, §1.2", "zh", catalog) == [
        Section("000 §1", "甲", "甲"),
        Section("000 §1.1", "乙", "甲"),
        Section("000 §1.2", "", "甲"),
    ]
