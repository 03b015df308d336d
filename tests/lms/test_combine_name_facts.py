"""Two handins of one student merged into one kept the newest name but dropped what the
download said of it: that several participants bear it (blind marking in another language,
``shared_name``), and the names a team download may mean (``aliases``). The merged row then
took "Teilnehmerin" for a student's name. What is known of a name now goes with it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from grader.lms.handin import Handin
from grader.lms.intake import _combine

START = datetime(2026, 12, 1, tzinfo=timezone.utc)
names = st.sampled_from(["", "Teilnehmerin", "Ana Ruiz", "team-a-Ana Ruiz"])


@given(
    facts=st.lists(
        st.tuples(names, st.integers(0, 3), st.lists(st.sampled_from(["Ana", "Ruiz"]), max_size=2)),
        min_size=2,
        max_size=4,
    )
)
def test_a_merged_name_keeps_what_the_download_said_of_it(facts):
    handins = [
        Handin(
            f"p{i}",
            key_kind="participant",
            name=name,
            participant="901",
            submitted_at=START + timedelta(hours=i),
            origin=f"folder{i}/",
            shared_name=shared if name else 0,
            aliases=tuple(aliases) if name else (),
        )
        for i, (name, shared, aliases) in enumerate(facts)
    ]
    merged = _combine(handins)
    named = [h for h in handins if h.name]
    if named:
        source = named[-1]  # the newest handin that gives a name
        assert merged.name == source.name
        assert (merged.shared_name, merged.aliases) == (source.shared_name, source.aliases)
    else:
        assert (merged.name, merged.shared_name, merged.aliases) == ("", 0, ())


def test_teilnehmerin_merged_with_itself_stays_shared():
    one = Handin("p1", name="Teilnehmerin", participant="901", shared_name=2, origin="a/")
    two = Handin("p1", name="Teilnehmerin", participant="901", shared_name=2, origin="b/")
    assert _combine([one, two]).shared_name == 2
