"""Every evidence tag that an exercise's hidden tests can attach to a failure either names a
misconception in the catalogue (grader/diagnoses.yaml) or is declared here as one that names
none: seven specific tags (stats_swapped, epsilon_before_sqrt, doubled_not_squared,
floor_division, linspace_end_included, slice_end_off_by_one, loss_not_mse) were emitted with a
precise message but no diagnosis, because nothing required the catalogue to know them.

The tags are read from the source, as an author writes them: the string constants of every
``evidence=`` argument, and the tag of each (tag, English, Chinese) story tuple that the
checks turn into evidence. ``GENERIC`` (the generic checks' tags, grader/engine/slipped.py)
say *that* an answer is wrong; ``UNNAMED`` below are tags whose message alone tells the
learner, each with why. A new tag gets a catalogue entry, or a line here saying why not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from grader.diagnose import DiagnosisCatalog
from grader.engine.slipped import GENERIC

ROOT = Path(__file__).resolve().parents[1]
TAG = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")

# Tags that name no catalogue entry, and why. Generic: they say *that* something is wrong
# (another check or the message says what); context: they qualify another tag of the same
# failure; told: the message names the mistake and its fix, and no entry has been written yet
# (this group may only shrink: give such a tag an entry and remove it here).
UNNAMED = {
    # generic: what kind of answer, not which mistake
    "wrong_type": "generic",
    "no_exception": "generic",
    "wrong_exception": "generic",
    "missing_key": "generic",
    "out_of_range": "generic",
    "order_changed": "generic",
    "layout_changes_result": "generic",
    "fails_on_views": "generic",
    "input_values_changed": "generic",
    "param_values_changed": "generic",
    "leaf_changed": "generic",
    "container_changed": "generic",
    "input_moved": "generic",
    "not_a_pair": "generic",
    "model_not_as_asked": "generic",
    "not_a_partition": "generic",
    "wrong_split_size": "generic",
    "constant_not_zero": "generic",
    "ends_not_0_and_1": "generic",
    "wrong_scale": "generic",  # the std is off; scale_as_mean or normal_wrong_scale say how
    # context: said with another tag of the same failure, which decides
    "model_refused_input": "context",
    "loss_refused_labels": "context",
    "source_computed_names": "context",
    "source_unanalysable": "context",
    "device_branch": "context",
    "copy_instead_of_view": "context",
    "view_non_contiguous": "context",
    "input_reshaped": "context",  # with input_mutated: the input changed its shape too
    # told: the message names the mistake and its fix; no catalogue entry yet
    "added_not_joined": "told",
    "batch_merged": "told",
    "constant_weights": "told",
    "dim_removed_anyway": "told",
    "epsilon_in_denominator": "told",
    "first_values_regrouped": "told",
    "float64_instead_of_float32": "told",
    "global_statistics": "told",
    "heights_rescaled": "told",
    "index_not_at_max": "told",
    "int_mask_indexes": "told",
    "multiplied_not_divided": "told",
    "no_noise": "told",
    "noise_mean": "told",
    "noise_scale": "told",
    "not_scaled": "told",
    "not_shuffled": "told",
    "not_zero_init": "told",
    "pair_swapped": "told",
    "reshaped_in_order": "told",
    "returned_grad_norm": "told",
    "same_noise": "told",
    "selected_not_mask": "told",
    "transposed_not_flattened": "told",
    "zero_guard_changed_std": "told",
    "mean_over_wrong_count": "told",
    "clip_given_nothing": "told",
    "manhattan_distance": "told",
    "mean_where_sum": "told",
    "iou_area_of_corner": "told",
    "iou_area_summed": "told",
    "iou_enclosing_box": "told",
    "pixel_inclusive_boxes": "told",
}


def _text(node: ast.AST) -> bool:
    """Whether ``node`` looks like a learner-facing sentence (an f-string, a string with a
    space, or one built from parts), not another identifier."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and " " in node.value
    return isinstance(node, (ast.JoinedStr, ast.BinOp, ast.Call))


def emitted_tags(source: str) -> set[str]:
    """The evidence tags a hidden-test module writes: ``evidence=`` constants and the tags of
    story tuples (a tag beside two sentences, English and Chinese)."""
    tags = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == "evidence":
            tags |= {
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
        # a story: its sentences (English, Chinese) beside the tag, wherever it stands
        if isinstance(node, ast.Tuple) and sum(_text(e) for e in node.elts) >= 2:
            tags |= {
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and TAG.match(e.value)
            }
    return tags


def _sources() -> list[Path]:
    testing = ROOT / "grader" / "testing"
    return sorted(ROOT.glob("exercises/*/tests.py")) + sorted(
        p for p in testing.rglob("*.py") if "analysis" not in p.parts
    )


def _all_tags() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in _sources():
        for tag in emitted_tags(path.read_text(encoding="utf-8")):
            found.setdefault(tag, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_emitted_tag_names_a_diagnosis_or_is_declared_unnamed():
    named = DiagnosisCatalog.load().named_evidence()
    orphans = {
        tag: files
        for tag, files in _all_tags().items()
        if tag not in named and tag not in GENERIC and tag not in UNNAMED
    }
    assert not orphans, (
        "evidence tags with no catalogue entry: give each an entry in grader/diagnoses.yaml "
        f"(or declare why it names none in UNNAMED): {orphans}"
    )


def test_the_unnamed_list_is_current():
    named = DiagnosisCatalog.load().named_evidence()
    found = _all_tags()
    assert not (set(UNNAMED) & named), "these have entries now: remove them from UNNAMED"
    assert not (set(UNNAMED) & GENERIC)
    stale = sorted(t for t in UNNAMED if t not in found)
    assert not stale, f"no longer emitted: remove from UNNAMED: {stale}"


def test_the_seven_named_in_the_review_have_entries():
    named = DiagnosisCatalog.load().named_evidence()
    for tag in (
        "stats_swapped",
        "epsilon_before_sqrt",
        "doubled_not_squared",
        "floor_division",
        "linspace_end_included",
        "slice_end_off_by_one",
        "loss_not_mse",
    ):
        assert tag in named, tag


def test_the_scan_sees_both_ways_of_writing_a_tag():
    source = (
        "def f(fail, tag):\n"
        "    fail('a', 'b', evidence=['values_differ', 'one_tag'])\n"
        "    story = ('story_tag', f'en {tag}', 'zh text here')\n"
        "    other = (values, 'later_tag', f'en {tag}', 'zh text here')\n"
        "    names = ('not_tag', 'other_name', 'third_name')\n"
    )
    assert emitted_tags(source) == {"values_differ", "one_tag", "story_tag", "later_tag"}
