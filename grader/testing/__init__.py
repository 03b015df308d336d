"""The API hidden tests are written against (see exercises/README.md).

Fixtures come from the grader's pytest plugin: ``learner`` (calls into the learner's code),
``reference`` (the reference solution, run here on the trusted side), ``device``, ``rng``,
``seed``, ``exercise``, ``learner_source`` and ``attach``. The checks below fail with
learner-facing messages and evidence for the diagnosis; ``devices`` holds the meta-device helpers
(``on_meta``, ``call_on_meta``, ``reference_on``), ``training`` the loss-curve helpers
(``as_floats``, ``compare_losses``, ``loss_head``, ``once`` for a
reference run shared by a worker's submissions, and ``optimizer_used`` for the optimizer the
learner's training created), and ``analysis`` the static analysis of
the learner's whole file behind ``assert_no_loops`` and ``assert_not_forbidden`` (also
``review`` and ``canonical_op``, for the engine).
"""

from grader.i18n import Text
from grader.sandbox.codec import ModuleValue, Opaque, array_info, tensor_info
from grader.sandbox.faults import LearnerRaised
from grader.testing.checks import (
    CheckFailed,
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_finite,
    assert_independent,
    assert_no_loops,
    assert_not_called,
    assert_not_forbidden,
    assert_not_returned_exception,
    assert_op_growth,
    assert_ops_constant,
    assert_requires_grad,
    assert_shape,
    assert_shares,
    assert_type,
    assert_unchanged,
    assert_value,
    check,
    describe,
    describe_zh,
    device_of,
    expect_array,
    expect_raises,
    expect_tensor,
    fail,
    names,
    paired_heads,
    shares,
    skip,
    view_difference,
)
from grader.testing.devices import (
    assert_device_follows,
    call_on_meta,
    call_on_reported_cuda,
    device_slips,
    follows_reported_cuda,
    on_meta,
    reference_on,
)
from grader.testing.training import (
    as_floats,
    compare_losses,
    loss_head,
    once,
    optimizer_story,
    optimizer_used,
    own_optimizer_used,
)

__all__ = [
    "CheckFailed",
    "LearnerRaised",
    "ModuleValue",
    "Opaque",
    "Text",
    "array_info",
    "as_floats",
    "assert_close",
    "assert_device",
    "assert_device_follows",
    "assert_dtype",
    "assert_equal",
    "assert_finite",
    "assert_independent",
    "assert_no_loops",
    "assert_not_called",
    "assert_not_forbidden",
    "assert_not_returned_exception",
    "assert_op_growth",
    "assert_ops_constant",
    "assert_requires_grad",
    "assert_shape",
    "assert_shares",
    "assert_type",
    "assert_unchanged",
    "assert_value",
    "call_on_meta",
    "call_on_reported_cuda",
    "check",
    "compare_losses",
    "describe",
    "describe_zh",
    "device_of",
    "device_slips",
    "expect_array",
    "expect_raises",
    "expect_tensor",
    "fail",
    "follows_reported_cuda",
    "loss_head",
    "names",
    "on_meta",
    "once",
    "optimizer_story",
    "optimizer_used",
    "own_optimizer_used",
    "paired_heads",
    "reference_on",
    "shares",
    "skip",
    "tensor_info",
    "view_difference",
]
