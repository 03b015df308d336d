"""Static evidence from the learner's file (grader.testing.analysis.slips), joined to a failure
only where the two agree (grader.engine.slipped); PyTorch's wordings across case and devices;
a diagnosis's fix in the exercise's own terms, pointing at the learner's line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, diagnose, match
from grader.engine.slipped import T_WARNING, refine
from grader.i18n import Text
from grader.testing.analysis.slips import (
    KINDS,
    TORCH_FUNCTIONS,
    bare_calls,
    returned_under_no_grad,
    slips,
)

DROPPED = """
import torch

def helper(y):
    y.contiguous()
    return y.view(-1)

def flatten(x):
    y = x.t()
    return helper(y)

def unrelated(x):
    x.float()
    return x
"""


def test_a_dropped_result_is_found_in_the_function_and_what_it_calls():
    found = slips(DROPPED, ["flatten"])
    assert [(s.kind, s.method, s.line, s.function) for s in found] == [
        ("discarded", "contiguous", 5, "helper")
    ]
    assert found[0].code == "y.contiguous()"
    assert not slips(DROPPED, ["nothing_of_that_name"])


def test_a_dropped_to_on_a_tensor_made_by_torch_is_a_slip_and_on_a_module_it_is_not():
    """``pos = torch.arange(n)`` holds a tensor: its ``pos.to(device)`` thrown away is a slip.
    Every name assigned from ``torch.X(...)`` was taken for a module (whose .to() works in
    place), so the learner was told to use .to(x.device), which they had written."""
    source = (
        "import torch\n\ndef mask(lengths, n):\n    pos = torch.arange(n)\n"
        "    pos.to(lengths.device)\n    layer = torch.nn.Linear(2, 2)\n"
        "    layer.to(lengths.device)\n    return pos\n"
    )
    assert [(s.line, s.method) for s in slips(source, ["mask"])] == [(5, "to")]


def test_a_slip_quotes_its_own_line_after_a_page_break():
    """A form feed in a comment above: the slip's line was right, its quoted code another's."""
    source = "import torch  # a\x0cb\n\ndef flatten(y):\n    y.contiguous()\n    return y\n"
    [found] = slips(source, ["flatten"])
    assert (found.line, found.code) == (4, "y.contiguous()")


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted({m for names in KINDS.values() for m in names})),
    st.sampled_from(["x", "self.w", "out[0]", "f(x)"]),
)
def test_every_out_of_place_method_dropped_is_a_slip_and_kept_is_not(method, receiver):
    dropped = f"def g(x):\n    {receiver}.{method}()\n    return x\n"
    kept = f"def g(x):\n    y = {receiver}.{method}()\n    return y\n"
    in_place = f"def g(x):\n    {receiver}.{method}_()\n    return x\n"
    module = f"def g(x):\n    torch.{method}(x)\n    return x\n"
    if receiver == "self.w":  # self is never taken for a module: it is a tensor's holder
        assert [s.method for s in slips(dropped, ["g"])] == [method]
    else:
        assert [s.method for s in slips(dropped, ["g"])] == [method]
    assert not [s for s in slips(kept, ["g"]) if s.kind == "discarded"]
    assert not [s for s in slips(in_place, ["g"]) if s.kind == "discarded"]
    # torch.<function>(x) dropped is a slip only for a function known to return a new tensor
    # and change nothing (torch.abs, torch.cat); torch.manual_seed and the like are not read
    found = [(s.method, s.form) for s in slips(module, ["g"]) if s.kind == "discarded"]
    assert found == ([(method, "function")] if method in TORCH_FUNCTIONS else [])


def test_optimizer_and_module_calls_are_not_slips():
    source = (
        "import torch\n"
        "def train(model, opt):\n"
        "    torch.manual_seed(0)\n"
        "    optimizer.step()\n"
        "    model.train()\n"
        "    model.to('cpu')\n"
    )
    assert not [s for s in slips(source, ["train"]) if s.kind == "discarded"]
    # a module changes in place (model.to(device) is right); a tensor does not
    layers = "def f(x):\n    net = nn.Linear(2, 1)\n    net.double()\n    x.double()\n"
    assert [(s.line, s.method) for s in slips(layers, ["f"])] == [(4, "double")]


NO_GRAD_FORWARD = """
import torch

def train(model, X, y, opt):
    losses = []
    for _ in range(3):
        opt.zero_grad()
        with torch.no_grad():
            pred = model(X)
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        opt.step()
    return losses

def predict(model, X):
    with torch.no_grad():
        out = model(X)
    return out
"""


def test_a_forward_pass_under_no_grad_before_backward_is_a_slip():
    found = [s for s in slips(NO_GRAD_FORWARD, ["train"]) if s.kind == "forward_under_no_grad"]
    assert [(s.line, s.code) for s in found] == [(8, "with torch.no_grad():")]
    # inference under no_grad, with no backward after it, is what no_grad is for
    assert not [s for s in slips(NO_GRAD_FORWARD, ["predict"]) if s.kind != "discarded"]


def test_unparsable_files_give_no_slips():
    assert slips("def f(:\n", ["f"]) == ()
    assert slips("x" * (2 << 20), ["f"]) == ()


# -- joining a slip to a failure ------------------------------------------------------------

VIEW_ERROR = {"type": "RuntimeError", "message": "view size is not compatible with input ..."}
MESSAGE = Text("flatten raised RuntimeError", "flatten 抛出了异常")


def test_a_slip_that_agrees_with_the_failure_explains_it_on_its_line():
    refined = refine(MESSAGE, (), VIEW_ERROR, "", DROPPED, ["flatten"])
    assert refined is not None
    assert refined.evidence == ("result_discarded",)
    assert refined.line == 5
    assert "Line 5: `y.contiguous()`" in refined.message.en
    assert "第 5 行" in refined.message.zh


@pytest.mark.parametrize(
    ("evidence", "error"),
    [
        (("values_differ",), None),  # a dropped .contiguous() cannot change values
        (("values_differ", "overlap_not_clamped"), None),  # the test named another mistake
        ((), {"type": "RuntimeError", "message": "expected scalar type Float but found Long"}),
    ],
)
def test_a_slip_that_disagrees_with_the_failure_says_nothing(evidence, error):
    assert refine(MESSAGE, evidence, error, "", DROPPED, ["flatten"]) is None


def test_two_slips_that_explain_the_same_failure_differently_say_nothing():
    source = "def f(x):\n    x.add(1)\n    x.mul(2)\n    x.float()\n    x.abs()\n    return x\n"
    assert refine(MESSAGE, ("values_differ",), None, "", source, ["f"]) is not None  # all values
    mixed = "def f(x):\n    x.add(1)\n    x.reshape(-1)\n    return x\n"
    assert refine(MESSAGE, ("values_differ",), None, "", mixed, ["f"]) is None


def test_a_tag_the_catalogue_does_not_name_does_not_stand_against_a_slip():
    source = "def add_noise(x, std):\n    x.add(std)\n    return x.clone()\n"
    evidence = ("values_differ", "no_noise")
    assert refine(MESSAGE, evidence, None, "", source, ["add_noise"]) is None
    named = frozenset({"same_noise"})  # "no_noise" has no entry: it names no mistake
    refined = refine(MESSAGE, evidence, None, "", source, ["add_noise"], named)
    assert refined is not None and refined.evidence[-1] == "result_discarded"
    assert (
        refine(MESSAGE, evidence, None, "", source, ["add_noise"], frozenset({"no_noise"})) is None
    )


def test_a_dropped_to_explains_a_dtype_or_a_device():
    source = "def f(x):\n    x.to(torch.float32)\n    return x.mean()\n"
    error = {"type": "RuntimeError", "message": "mean(): could not infer output dtype. Got: Byte"}
    assert refine(MESSAGE, (), error, "", source, ["f"]) is not None
    assert refine(MESSAGE, ("wrong_device",), None, "", source, ["f"]) is not None
    assert refine(MESSAGE, ("values_differ",), None, "", source, ["f"]) is None


def test_dot_t_needs_pytorchs_warning_and_no_grad_needs_the_graph_error():
    source = "def f(v, m):\n    return m - v.T\n"
    assert refine(MESSAGE, ("values_differ",), None, "", source, ["f"]) is None
    warned = f"UserWarning: {T_WARNING} to reverse their shape is deprecated"
    refined = refine(MESSAGE, ("values_differ",), None, warned, source, ["f"])
    assert refined is not None and refined.evidence[-1] == "transpose_1d"
    error = {
        "type": "RuntimeError",
        "message": "element 0 of tensors does not require grad and does not have a grad_fn",
    }
    refined = refine(MESSAGE, (), error, "", NO_GRAD_FORWARD, ["train"])
    assert refined is not None and refined.evidence == ("forward_under_no_grad",)
    assert refined.line == 8


# -- PyTorch's wordings ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalogue() -> DiagnosisCatalog:
    return DiagnosisCatalog.load()


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # tensor.requires_grad_() and t.requires_grad = True word it in lower case
        ("only Tensors of floating point dtype can require gradients", "requires-grad-integer"),
        (
            "only Tensors of floating point and complex dtype can require gradients",
            "requires-grad-integer",
        ),
        (
            "Only Tensors of floating point and complex dtype can require gradients",
            "requires-grad-integer",
        ),
        # the meta device's wordings
        (
            "Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 "
            "had torch.Size([4]); but expected shape should be broadcastable to [3]",
            "broadcast-error",
        ),
        ("a and b must have same reduction dim, but got [2, 3] X [2, 4].", "shape-mismatch-matmul"),
        (
            "dot : expected both vectors to have same dtype, but found torch.float32 and torch.int64",
            "dtype-mismatch",
        ),
    ],
)
def test_pytorch_wordings_across_case_and_devices(catalogue, message, expected):
    entry = match(catalogue, (), {"type": "RuntimeError", "message": message})
    assert entry is not None and entry.id == expected


@pytest.mark.parametrize(
    "tag",
    [
        "result_discarded",
        "answer_transposed",
        "answer_permuted",
        "answer_diagonal",
        "scaled_by_size",
        "shifted_by_one",
        "transpose_1d",
        "forward_under_no_grad",
        "data_bypasses_autograd",
        "reduced_wrong_dim",
        "keepdim_kept",
        "size_one_dims",
    ],
)
def test_every_new_tag_has_a_bilingual_diagnosis(catalogue, tag):
    entry = match(catalogue, (tag,), None)
    assert entry is not None
    for text in (entry.title, entry.what, entry.why, entry.fix):
        assert text.en.strip() and any("\u4e00" <= ch <= "\u9fff" for ch in text.zh)


# -- fixes in context -------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", ["13", "14"])
def test_loss_not_in_graph_speaks_of_the_exercise(catalogue, exercise):
    spec = Catalog(project_root()).resolve(exercise)
    for lang in ("en", "zh"):
        found = diagnose(
            catalogue, ("forward_under_no_grad",), None, lang, exercise=spec.id, fixes=spec.fix
        )
        assert found is not None and found.id == "loss-not-in-graph"
        assert "w -= lr" not in found.fix and "{line}" not in found.fix
        assert "no_grad" in found.fix
    with_line = diagnose(
        catalogue, ("forward_under_no_grad",), None, "en", exercise=spec.id, fixes=spec.fix, line=11
    )
    assert with_line is not None and "(line 11)" in with_line.fix
    zh = diagnose(
        catalogue, ("forward_under_no_grad",), None, "zh", exercise=spec.id, fixes=spec.fix, line=11
    )
    assert zh is not None and "第 11 行" in zh.fix
    # elsewhere the catalogue's own fix stands
    other = diagnose(catalogue, ("forward_under_no_grad",), None, "en", exercise="exercise-16")
    assert other is not None and other.fix == catalogue.get("loss-not-in-graph").fix.en


# -- any pure computation whose result is dropped ----------------------------------------------

DROPPED_COMPUTATIONS = [
    # (statement, method, group, form, keep)
    ("w * 0.01", "", "values", "expression", "w = w * 0.01"),
    ("x - mean", "", "values", "expression", "x = x - mean"),
    ("-x", "", "values", "expression", "x = -x"),
    ("boxes[keep]", "", "select", "expression", "boxes = boxes[keep]"),
    ("x[:, None]", "", "select", "expression", "x = x[:, None]"),
    ("out.scatter(1, labels.unsqueeze(1), 1.0)", "scatter", "values", "method", ""),
    ("torch.cat([out, b], dim=1)", "cat", "layout", "function", "out = torch.cat([out, b], dim=1)"),
    ("torch.where(x > 0, x, 0)", "where", "values", "function", ""),
    ("x.gather(1, idx)", "gather", "select", "method", ""),
]


@pytest.mark.parametrize(("statement", "method", "group", "form", "keep"), DROPPED_COMPUTATIONS)
def test_a_dropped_operator_index_or_torch_function_is_a_slip(statement, method, group, form, keep):
    source = f"import torch\n\ndef f(x, w, mean, boxes, keep, out, labels, b, idx):\n    {statement}\n    return x\n"
    [found] = slips(source, ["f"])
    assert (found.kind, found.line, found.code) == ("discarded", 4, statement)
    assert (found.method, found.group, found.form, found.keep) == (method, group, form, keep)


# statements that do something, or that the grader cannot tell are pure
EFFECTS = [
    "x.add_(1)",
    "x.clamp_(min=0)",
    "print(x * 2)",
    "losses.append(x * 2)",
    "loss.backward()",
    "optimizer.step()",
    "opt.zero_grad()",
    "torch.manual_seed(0)",
    "torch.cat([x, w], out=b)",
    "helper(x) * 2",
    "x.add_(1) * 2",
    "torch.cat([helper(x), w])",
    "2 * 3",
    "sys.argv[1]",
    "x.item()",
    "x.tolist()",
    "...",
    "'a docstring'",
    "model.to(device)",
]


@pytest.mark.parametrize("statement", EFFECTS)
def test_a_statement_with_an_effect_is_not_a_dropped_result(statement):
    source = f"import torch\n\ndef f(x, w, b, loss, optimizer, opt, losses, model, device):\n    {statement}\n    return x\n"
    assert not [s for s in slips(source, ["f"]) if s.kind == "discarded"], statement


_names = st.sampled_from(["x", "w", "mean", "boxes"])
_pure = st.recursive(
    _names,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "@"]), inner).map(" ".join),
        inner.map(lambda e: f"({e})[0]"),
        inner.map(lambda e: f"({e}).sum(dim=0)"),
        st.tuples(inner, inner).map(lambda p: f"torch.cat([{p[0]}, {p[1]}])"),
    ),
    max_leaves=4,
)
_effect = st.sampled_from(["x.add_(1)", "helper(x)", "losses.append(x)", "x.backward()"])


@settings(max_examples=80, deadline=None)
@given(_pure, _effect, st.booleans())
def test_generated_statements_pure_ones_are_dropped_results_and_effects_never(pure, effect, mix):
    """A pure computation thrown away is a slip whatever its form; a statement that holds a
    call with an effect anywhere in it is never one."""
    statement = f"({pure}) * ({effect})" if mix else pure
    source = (
        f"import torch\n\ndef helper(x):\n    return x\n\ndef f(x, w, mean, boxes, losses):\n"
        f"    {statement}\n    return x\n"
    )
    found = [s for s in slips(source, ["f"]) if s.kind == "discarded"]
    if mix:
        assert not found, statement
    elif pure in ("x", "w", "mean", "boxes"):
        assert not found  # a bare name is no computation
    else:
        assert [s.line for s in found] == [7], statement


def test_a_dropped_index_agrees_with_a_wrong_shape_and_says_what_to_keep():
    source = "def filter_boxes(boxes, scores, t):\n    keep = scores > t\n    boxes[keep]\n    return boxes\n"
    refined = refine(MESSAGE, ("wrong_shape",), None, "", source, ["filter_boxes"])
    assert refined is not None and refined.evidence[-1] == "result_discarded"
    assert (
        "boxes = boxes[keep]" in refined.message.en and "boxes = boxes[keep]" in refined.message.zh
    )
    assert ".()" not in refined.message.en
    cat = "import torch\n\ndef f(out, b):\n    torch.cat([out, b], dim=1)\n    return out\n"
    refined = refine(MESSAGE, ("wrong_shape",), None, "", cat, ["f"])
    assert refined is not None and "out = torch.cat([out, b], dim=1)" in refined.message.en
    assert "torch = " not in refined.message.en


def test_a_squeeze_with_no_dim_is_found_where_the_graded_function_reaches_it():
    source = (
        "def helper(m):\n    return m.squeeze()\n\ndef column_means(x):\n"
        "    m = x.mean(dim=0, keepdim=True)\n    return helper(m)\n\n"
        "def other(x):\n    return x.squeeze()\n\ndef named(x):\n    return x.squeeze(0)\n"
    )
    assert bare_calls(source, ["column_means"], "squeeze") == (2,)
    assert bare_calls(source, ["named"], "squeeze") == ()
    assert bare_calls("def f(:\n", ["f"], "squeeze") == ()


def test_a_dot_t_story_is_told_of_the_failing_input_only():
    """positives(x) with x.T: PyTorch warned for a 1-D x of the same test, but the call that
    failed passed a 2-D x, where .T is a true transpose. The story is not told of it."""
    import torch

    from grader.testing import relations

    source = "def positives(x):\n    flat = x.T.flatten()\n    return flat[flat > 0]\n"
    warned = f"UserWarning: {T_WARNING} to reverse their shape is deprecated"
    try:
        relations.remember((torch.randn(4, 5),))
        assert refine(MESSAGE, ("values_differ",), None, warned, source, ["positives"]) is None
        relations.remember((torch.randn(6),))
        refined = refine(MESSAGE, ("values_differ",), None, warned, source, ["positives"])
        assert refined is not None and refined.evidence[-1] == "transpose_1d"
        # .T of a value computed inside (a mean's row): the input's shape says nothing of it
        relations.remember((torch.randn(4, 5),))
        inner = "def center(x):\n    return x - x.mean(dim=1).T\n"
        refined = refine(MESSAGE, ("values_differ",), None, warned, inner, ["center"])
        assert refined is not None and refined.evidence[-1] == "transpose_1d"
    finally:
        relations.forget()


RETURNED_UNDER_NO_GRAD = """
import torch

def pick(scores, labels):
    with torch.no_grad():
        return scores.gather(1, labels.unsqueeze(1)).squeeze(1)

def pick_named(scores, labels):
    with torch.no_grad():
        out = scores.gather(1, labels.unsqueeze(1))
    return out.squeeze(1)

def pick_named_then_renewed(scores, labels):
    with torch.no_grad():
        out = scores.argmax(dim=1)
    out = scores.gather(1, out.unsqueeze(1))
    return out

def evaluate(model, X):
    with torch.no_grad():
        predictions = model(X)
    return (predictions > 0).float().mean()
"""


def test_a_value_returned_from_under_no_grad_is_a_slip_told_only_of_a_cut_graph():
    def kinds(name):
        return [(s.kind, s.line) for s in returned_under_no_grad(RETURNED_UNDER_NO_GRAD, [name])]

    assert kinds("pick") == [("returned_under_no_grad", 5)]
    assert kinds("pick_named") == [("returned_under_no_grad", 9)]
    assert kinds("pick_named_then_renewed") == []
    assert kinds("evaluate") == [("returned_under_no_grad", 20)]  # a fact; no slip alone
    assert not [s for s in slips(RETURNED_UNDER_NO_GRAD, ["evaluate"]) if s.kind != "discarded"]
    refined = refine(MESSAGE, ("graph_broken",), None, "", RETURNED_UNDER_NO_GRAD, ["pick"])
    assert refined is not None and refined.evidence[-1] == "returned_under_no_grad"
    assert "Line 5: `with torch.no_grad():`" in refined.message.en
    assert "第 5 行" in refined.message.zh and "backward()" not in refined.message.en
    assert refine(MESSAGE, ("values_differ",), None, "", RETURNED_UNDER_NO_GRAD, ["pick"]) is None


# -- a forward pass under no_grad, then requires_grad set on its result -------------------------
# backward() then runs and stops at that result: the leaves it came from keep .grad None, so
# the learner's error is a None gradient ("'NoneType' object has no attribute 'item'"), which
# the slip explains as well as it explains "does not require grad".

NONE_ERRORS = [
    ("AttributeError", "'NoneType' object has no attribute 'item'"),
    ("TypeError", "unsupported operand type(s) for *: 'float' and 'NoneType'"),
    ("AttributeError", "'NoneType' object has no attribute 'zero_'"),
]


def _derivative_source(leaf, out, under_no_grad, flag):
    body = f"        {out} = f({leaf})\n" if under_no_grad else ""
    plain = "" if under_no_grad else f"    {out} = f({leaf})\n"
    block = f"    with torch.no_grad():\n{body}" if under_no_grad else ""
    set_flag = f"    {out}.{flag}\n" if flag else ""
    return (
        "import torch\n\n\ndef derivative(f, x):\n"
        f"    {leaf} = torch.tensor(float(x), requires_grad=True)\n"
        f"{block}{plain}{set_flag}"
        f"    {out}.backward()\n"
        f"    return {leaf}.grad.item()\n"
    )


@settings(max_examples=60, deadline=None)
@given(
    leaf=st.sampled_from(["t", "x_t", "xt", "leaf"]),
    out=st.sampled_from(["y", "out", "value", "fx"]),
    flag=st.sampled_from(["requires_grad_(True)", "requires_grad_()", "retain_grad()"]),
    error=st.sampled_from(NONE_ERRORS),
    under_no_grad=st.booleans(),
)
def test_a_none_gradient_is_explained_by_a_forward_pass_under_no_grad_only_where_there_is_one(
    leaf, out, flag, error, under_no_grad
):
    source = _derivative_source(leaf, out, under_no_grad, flag)
    kind, text = error
    refined = refine(MESSAGE, (), {"type": kind, "message": text}, "", source, ["derivative"])
    if under_no_grad:
        assert refined is not None and refined.evidence == ("forward_under_no_grad",)
        assert refined.line == 6
        assert "stays None" in refined.message.en and "None" in refined.message.zh
    else:
        assert refined is None or "forward_under_no_grad" not in refined.evidence


def test_an_exception_without_a_full_stop_is_ended_before_the_story():
    source = _derivative_source("t", "y", True, "requires_grad_(True)")
    error = {"type": "AttributeError", "message": NONE_ERRORS[0][1]}
    message = Text(
        "derivative raised AttributeError: 'NoneType' object has no attribute 'item'",
        "derivative 抛出了异常 AttributeError: 'NoneType' object has no attribute 'item'",
    )
    refined = refine(message, (), error, "", source, ["derivative"])
    assert refined is not None
    assert "'item'. Line 6: `with torch.no_grad():`" in refined.message.en
    assert "'item'。第 6 行" in refined.message.zh
