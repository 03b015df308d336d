"""Exercise 18: bmi with its two inputs swapped (def bmi(weights_kg, heights_m), or
heights_m / weights_kg ** 2) or upside down (heights_m ** 2 / weights_kg) got only "values
differ". Every value being that formula is now the evidence (``bmi_order_story``), and only
where the input tells it from the right answer."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX18 = hidden_tests("exercise-18")

FORMULAS = {
    "right": lambda h, w: w / h**2,
    "swapped": lambda h, w: h / w**2,
    "upside_down": lambda h, w: h**2 / w,
    "doubled": lambda h, w: w / (2 * h),
    "no_square": lambda h, w: w / h,
}

people = st.lists(st.tuples(st.floats(1.2, 2.2), st.floats(30.0, 150.0)), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(people=people, name=st.sampled_from(sorted(FORMULAS)))
def test_the_swap_is_named_exactly_where_every_value_is_the_swapped_formula(people, name):
    h = torch.tensor([p[0] for p in people], dtype=torch.float64)
    w = torch.tensor([p[1] for p in people], dtype=torch.float64)
    got = FORMULAS[name](h, w)
    story = EX18.bmi_order_story(got, h, w)
    if name in ("swapped", "upside_down"):
        evidence = "bmi_formula_swapped" if name == "swapped" else "formula_upside_down"
        assert story is not None and story[0] == evidence
        assert ("swapped" in story[1]) == (name == "swapped")
        assert (
            "weights_kg / heights_m ** 2" in story[1] and "weights_kg / heights_m ** 2" in story[2]
        )
    else:
        assert story is None


def test_an_input_where_the_swap_gives_the_right_answer_claims_nothing():
    h = torch.tensor([2.0], dtype=torch.float64)
    w = torch.tensor([2.0], dtype=torch.float64)  # h / w**2 == w / h**2 == 0.5
    assert EX18.bmi_order_story(h / w**2, h, w) is None
    assert EX18.bmi_order_story(torch.empty(0, dtype=torch.float64), h[:0], w[:0]) is None
