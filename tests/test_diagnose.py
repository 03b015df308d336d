"""The diagnosis catalogue and its matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, diagnose, match
from grader.errors import SpecError


@pytest.fixture(scope="module")
def catalogue() -> DiagnosisCatalog:
    return DiagnosisCatalog.load()


def test_every_entry_is_bilingual_and_complete(catalogue):
    assert len(catalogue.entries) >= 20
    for entry in catalogue.entries:
        for text in (entry.title, entry.what, entry.why, entry.fix):
            assert text.en.strip() and text.zh.strip()
        for text in (entry.title, entry.what, entry.why):  # a fix may be code alone
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text.zh), entry.id


def test_every_seed_pitfall_is_named(catalogue):
    ids = catalogue.ids()
    for pitfall in (
        "view-non-contiguous",
        "device-mismatch",
        "dtype-mismatch",
        "leaf-inplace",
        "numpy-requires-grad",
        "grad-accumulates",
        "params-never-move",
        "view-not-copy",
        "broadcast-shape",
        "python-loop",
        "nan-output",
        "rand-vs-randn",
        "tensor-constructor",
        "squeeze-all",
        "out-of-memory",
        "shape-mismatch-matmul",
    ):
        assert pitfall in ids


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "view size is not compatible with input tensor's size and stride (at least one ...)",
            "view-non-contiguous",
        ),
        (
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
            "device-mismatch",
        ),
        ("Tensor on device cpu is not on the expected device meta!", "device-mismatch"),
        ("expected scalar type Float but found Long", "dtype-mismatch"),
        # an average or spread of whole numbers: nothing mixed, the operation wants floats
        (
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            "or complex dtype. Got: Byte",
            "float-op-on-integers",
        ),
        ("std and var only support floating point and complex dtypes", "float-op-on-integers"),
        ("\"softmax_lastdim_kernel_impl\" not implemented for 'Long'", "float-op-on-integers"),
        ("quantile() input tensor must be either float or double dtype", "float-op-on-integers"),
        ("\"addmm_impl_cpu_\" not implemented for 'Long'", "dtype-mismatch"),
        (
            "a leaf Variable that requires grad is being used in an in-place operation.",
            "leaf-inplace",
        ),
        (
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            "numpy-requires-grad",
        ),
        ("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)", "shape-mismatch-matmul"),
        # x >= 18.5 & (x <= 24.9): & binds tighter than >=, so it gets the float 18.5
        ("\"bitwise_and_cpu\" not implemented for 'Float'", "comparison-precedence"),
        ("\"bitwise_or_cuda\" not implemented for 'Half'", "comparison-precedence"),
        (
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate 53687091200 bytes.",
            "out-of-memory",
        ),
    ],
)
def test_pytorch_error_messages(catalogue, message, expected):
    entry = match(catalogue, (), {"type": "RuntimeError", "message": message})
    assert entry is not None and entry.id == expected


@settings(max_examples=60, deadline=None)
@given(
    op=st.sampled_from(["and", "or", "xor"]),
    backend=st.sampled_from(["", "_cpu", "_cuda"]),
    dtype=st.sampled_from(["Float", "Double", "Half", "BFloat16", "Long", "Int", "Bool"]),
)
def test_bitwise_on_floats_names_precedence_only_for_and_or(op, backend, dtype):
    """& or | refused for a float is a comparison without parentheses; ^ is caret-not-power,
    and an integer or bool dtype never tells of precedence."""
    catalogue = DiagnosisCatalog.load()
    message = f"\"bitwise_{op}{backend}\" not implemented for '{dtype}'"
    entry = match(catalogue, (), {"type": "NotImplementedError", "message": message})
    found = entry.id if entry is not None else None
    floating = dtype in ("Float", "Double", "Half", "BFloat16")
    if op == "xor":
        assert found != "comparison-precedence"
    else:
        assert (found == "comparison-precedence") == floating, (message, found)


@settings(max_examples=60, deadline=None)
@given(
    op=st.sampled_from(["*", "+", "-", "/", "//", "**", "%"]),
    other=st.sampled_from(["int", "float", "Tensor"]),
    kind=st.sampled_from(["builtin_function_or_method", "method"]),
    method_first=st.booleans(),
)
def test_a_method_object_in_arithmetic_is_a_method_not_called(op, other, kind, method_first):
    """t.numel() * t.element_size (no parentheses) raised "unsupported operand type(s) for *:
    'int' and 'builtin_function_or_method'" and got no diagnosis."""
    pair = (f"'{kind}'", f"'{other}'") if method_first else (f"'{other}'", f"'{kind}'")
    message = f"unsupported operand type(s) for {op}: {pair[0]} and {pair[1]}"
    entry = match(DiagnosisCatalog.load(), (), {"type": "TypeError", "message": message})
    assert entry is not None and entry.id == "method-not-called", message


@pytest.mark.parametrize(
    "message",
    [
        "'builtin_function_or_method' object is not subscriptable",
        "'method' object is not iterable",
    ],
)
def test_a_method_object_indexed_or_looped_over_is_a_method_not_called(message):
    entry = match(DiagnosisCatalog.load(), (), {"type": "TypeError", "message": message})
    assert entry is not None and entry.id == "method-not-called"


def test_none_in_arithmetic_is_not_a_method_not_called():
    message = "unsupported operand type(s) for *: 'float' and 'NoneType'"
    entry = match(DiagnosisCatalog.load(), (), {"type": "TypeError", "message": message})
    assert entry is not None and entry.id != "method-not-called"


def test_the_most_specific_evidence_wins(catalogue):
    assert match(catalogue, ("wrong_shape", "broadcast_shape"), None).id == "broadcast-shape"
    assert match(catalogue, ("wrong_shape",), None).id == "wrong-shape"
    assert match(catalogue, ("values_differ", "nan_in_output"), None).id == "nan-output"
    # evidence decides before exception patterns
    entry = match(
        catalogue,
        ("not_implemented",),
        {"type": "NotImplementedError", "message": "view size is not compatible"},
    )
    assert entry.id == "not-implemented"


def test_unknown_evidence_and_no_exception_give_nothing(catalogue):
    assert match(catalogue, ("values_differ",), None) is None
    assert diagnose(catalogue, (), None, "en") is None


def test_localized(catalogue):
    en = diagnose(catalogue, ("op_count_grows",), None, "en")
    zh = diagnose(catalogue, ("op_count_grows",), None, "zh")
    assert en.id == zh.id == "python-loop"
    assert en.title != zh.title and "循环" in zh.title


def test_a_fix_names_the_learners_own_file_and_no_placeholder(catalogue):
    """The fix for code that fails at import says which file to run, in both languages."""
    for lang in ("en", "zh"):
        found = diagnose(
            catalogue, ("import_error",), None, lang, exercise="exercise-07", file="exercise-07.py"
        )
        assert found.id == "import-failed"
        assert "`python exercise-07.py`" in found.fix and "NN" not in found.fix
    assert (
        "`python exercise-07.py`"
        in diagnose(catalogue, ("import_error",), None, "en", exercise="exercise-07").fix
    )
    for entry in catalogue.entries:  # no fix of the built-in catalogue shows a placeholder
        for lang in ("en", "zh"):
            fix = entry.localized(lang, "exercise-07", "exercise-07.py").fix
            assert "exercise-NN" not in fix and "{" not in fix, (entry.id, fix)
        for pattern in entry.exceptions:  # nor the fix of one exception in particular
            if pattern.fix is not None:
                assert pattern.fix.en.strip() and pattern.fix.zh.strip(), entry.id
                assert "{" not in pattern.fix.en + pattern.fix.zh, entry.id


def test_declared_fallback(catalogue):
    assert diagnose(catalogue, (), None, "en", fallback="grad-accumulates").id == "grad-accumulates"


def test_an_exception_s_own_fix_replaces_the_entry_s_fix_only_for_that_exception(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(
        "format_version: 1\ndiagnoses:\n  - id: x\n"
        "    title: {en: a, zh: 甲}\n    what: {en: a, zh: 甲}\n    why: {en: a, zh: 甲}\n"
        "    fix: {en: general, zh: 一般}\n    exceptions:\n"
        "      - message: special\n        fix: {en: particular, zh: 特定}\n"
        "      - message: other\n",
        encoding="utf-8",
    )
    catalogue = DiagnosisCatalog.load(path)
    special = diagnose(catalogue, (), {"type": "E", "message": "a special one"}, "zh")
    other = diagnose(catalogue, (), {"type": "E", "message": "an other one"}, "en")
    assert special is not None and special.fix == "特定"
    assert other is not None and other.fix == "general"


def test_malformed_catalogue(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("format_version: 1\ndiagnoses:\n  - id: x\n    title: {en: a, zh: 甲}\n")
    with pytest.raises(SpecError) as info:
        DiagnosisCatalog.load(path)
    assert "missing" in info.value.problem


@settings(max_examples=25, deadline=None)
@given(titles=st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=6))
def test_a_catalogue_is_parsed_again_once_its_file_changes(tmp_path_factory, titles):
    """A catalogue is parsed once for each content its file has had: every edit is seen (one
    of the same size, written within the same clock tick, too), and a file that turns bad
    after a good read is refused as ever."""
    path = tmp_path_factory.mktemp("course") / "diagnoses.yaml"
    for title in titles:
        path.write_text(
            "format_version: 1\ndiagnoses:\n  - id: x\n"
            f"    title: {{en: {title}, zh: 甲}}\n    what: {{en: a, zh: 甲}}\n"
            "    why: {en: a, zh: 甲}\n    fix: {en: f, zh: 乙}\n    evidence: [t]\n",
            encoding="utf-8",
        )
        assert DiagnosisCatalog.load(path).get("x").title.en == title
        assert DiagnosisCatalog.load(path) is DiagnosisCatalog.load(path)
    path.write_text("format_version: 1\ndiagnoses:\n  - id: x\n")
    with pytest.raises(SpecError):
        DiagnosisCatalog.load(path)
    path.unlink()
    with pytest.raises(SpecError):
        DiagnosisCatalog.load(path)


def test_every_diagnosis_an_exercise_declares_exists(catalogue):
    for spec in Catalog(project_root()).all():
        for mutant in spec.mutants:
            if mutant.diagnosis:
                assert mutant.diagnosis in catalogue.ids(), (spec.id, mutant.file)


@pytest.mark.parametrize(
    ("line", "message"),
    [("format_version: 2", "unsupported version 2"), ("", "missing")],
)
def test_a_catalogue_of_another_format_is_refused_naming_its_file(tmp_path, line, message):
    path = tmp_path / "diagnoses.yaml"
    path.write_text(f"{line}\ndiagnoses: []\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        DiagnosisCatalog.load(path)
    text = info.value.format()
    assert str(path) in text and "format_version" in text and message in text
