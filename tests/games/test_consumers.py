"""The table's regions as ``games.consumers.render_regions`` writes them for one viewer."""

from __future__ import annotations

import re

from django.utils import translation

from games.consumers import render_regions
from games.live import table as t
from games.live.views import build_view


def _high_stakes_doc() -> t.Doc:
    table = {"id": 7, "name": "oak", "stake": 1000, "seat_count": 3, "dark_play": False, "turn_seconds": 30}
    doc = t.new_table_doc(
        table=table | {"status": "open", "private": False, "practice": False},
        seats=[t.seat_entry(user_id=uid, name=name, chips=50_000) for uid, name in ((1, "ann"), (2, "bob"))]
        + [None],
    )
    return t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")


def test_chip_counts_are_grouped_in_the_text_and_plain_in_the_forms() -> None:
    doc = _high_stakes_doc()
    for language, sep in (("en", ","), ("bg", "\xa0")):
        with translation.override(language):
            to_act = doc["hand"]["players"][t.hand_of(doc).to_act]
            html = render_regions(view=build_view(doc, user_id=to_act, version=3))
            watching = render_regions(view=build_view(doc, user_id=99, version=3))
        chips = re.findall(r'<span class="amount">([^<]*)</span>', html)
        assert chips and all(c in (f"49{sep}000", f"48{sep}000") for c in chips), chips  # after the antes
        (pot,) = re.findall(r'class="pot-amount">.*?<strong>([^<]*)</strong>', html)
        assert pot == f"2{sep}000"  # the two antes
        (raise_range,) = re.findall(r'<small class="range">([^<]*)</small>', html)
        assert f"49{sep}000" in raise_range
        assert re.search(r'name="amount" min="\d+" max="\d+"', html)  # a form's numbers stay digits
        assert f"20{sep}000" in watching and 'name="buy_in" min="20000" max="100000"' in watching
        assert "50000" not in re.sub(r'(value|min|max|step)="\d+"', "", html)  # no plain count left
