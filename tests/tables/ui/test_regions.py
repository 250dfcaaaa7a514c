"""The table's regions as ``games.tables.ui.regions.render_regions`` writes them for one viewer."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from bench.frames import face_up
from games.live import transitions as t
from games.live.document import Doc, hand_of, new_table_doc, seat_entry
from games.live.views import PublicView, build_view, public_view
from games.tables.ui.regions import forget_shared, frame, render_regions, render_shared, shared_regions


def _high_stakes_doc() -> Doc:
    table = {"id": 7, "name": "oak", "stake": 1000, "seat_count": 3, "dark_play": False, "turn_seconds": 30}
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=uid, name=name, chips=50_000) for uid, name in ((1, "ann"), (2, "bob"))]
        + [None],
    )
    return t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")


def test_chip_counts_are_grouped_in_the_text_and_plain_in_the_forms() -> None:
    doc = _high_stakes_doc()
    for language, sep in (("en", ","), ("bg", "\xa0")):
        with translation.override(language):
            to_act = doc["hand"]["players"][hand_of(doc).to_act]
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


def _practice_doc_out_of_chips() -> Doc:
    table = {"id": 9, "name": "practice", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
    return new_table_doc(
        table=table | {"status": "open", "private": True, "kind": "practice"},
        seats=[
            seat_entry(user_id=1, name="ann", chips=5, sitting_out=True),
            seat_entry(user_id=2, name="Computer (hard)", chips=995, bot="hard"),
        ],
    )


def test_a_practice_table_out_of_chips_offers_a_new_game_and_nothing_it_would_refuse() -> None:
    html = render_regions(view=build_view(_practice_doc_out_of_chips(), user_id=1, version=4))
    assert 'value="newgame"' in html and 'class="button big"' in html
    assert 'value="comeback"' not in html and 'value="add"' not in html  # both refused there
    assert 'value="leave"' in html


def test_a_player_leaving_mid_hand_is_told_so_and_offered_no_leave() -> None:
    doc = _high_stakes_doc()
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    other = 3 - to_act
    doc = t.mark_leaving(doc, user_id=other, now=2.0)
    html = render_regions(view=build_view(doc, user_id=other, version=5))
    assert "You are leaving:" in html  # heads-up the hand ended with the leave: settled next
    assert 'value="leave"' not in html
    staying = render_regions(view=build_view(doc, user_id=to_act, version=5))
    assert "data-confirm=" not in staying or 'value="leave"' in staying


def _bust_doc(*, chips: int) -> Doc:
    """A real table at stake 10 (a hand needs 20): ann has ``chips`` left and sits out, bob plays on."""
    table = {"id": 11, "name": "elm", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
    return new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[
            seat_entry(user_id=1, name="ann", chips=chips, sitting_out=chips < 20),
            seat_entry(user_id=2, name="bob", chips=980),
        ],
    )


def test_a_stack_under_what_a_hand_needs_is_offered_the_chips_that_deal_it_in_and_told_why() -> None:
    html = render_regions(view=build_view(_bust_doc(chips=5), user_id=1, version=4))
    (prompt,) = re.findall(r'<div class="rebuy"[^>]*>(.*?)</div>', html, re.S)
    # Why: what the seat has, what a hand needs; and the amount that deals it in, on a button.
    assert "5 chips" in prompt and "20" in prompt and "two stakes" in prompt, prompt
    assert re.search(r'name="amount" value="15".*?Top up: add 15', prompt, re.S), prompt
    # A wallet too short for either: the daily bonus or a refill, without leaving the table.
    assert re.search(r'<a href="/profile/" target="_blank" rel="noopener">Wallet short\?', prompt), prompt
    # Or the buy-in again: back to the table's usual buy-in (500), at most its highest.
    assert re.search(r'name="amount" value="495".*?Buy in again: add 495', prompt, re.S), prompt
    # The "Add chips" field starts at what is needed, not at the stake (10 left her sitting out).
    (field,) = re.findall(
        r'<form ws-send class="add-form">.*?<input type="number" name="amount"[^>]*>', html, re.S
    )
    assert 'value="15"' in field and 'min="1"' in field, field
    # A stack that plays: no prompt, and "Add chips" as before.
    playing = render_regions(view=build_view(_bust_doc(chips=300), user_id=1, version=4))
    assert 'class="rebuy"' not in playing and 'value="add"' in playing


def test_the_fairness_details_are_in_a_drawer_and_the_log_line_has_no_seed_hash() -> None:
    doc = _high_stakes_doc()
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    html = render_regions(view=build_view(doc, user_id=to_act, version=3))
    # Nothing technical among the seat's controls: the client seed is in the page's fairness drawer.
    (controls,) = re.findall(r'<div class="seat-controls">(.*?)</div>\s*</section>', html, re.S)
    assert "seed" not in controls, controls
    (log,) = re.findall(r'<ol id="table-log-lines">(.*?)</ol>', html, re.S)
    assert "Hand 1 begins" in log and "Seed hash" not in log and doc["hand"]["seed_hash"][:16] not in log
    # The hand's hash is still one click away, in the fair-deck badge.
    assert re.search(r'<details class="fair-badge">.*?' + doc["hand"]["seed_hash"], html, re.S)


# ---------------------------------------------------------------- rendered once, not once per socket


def test_the_shared_part_is_rendered_from_the_public_view_only() -> None:
    doc = _high_stakes_doc()
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    own = build_view(doc, user_id=to_act, version=3)
    assert any(seat["cards"] for seat in own["seats"])  # this view holds the player's own cards
    with pytest.raises(TypeError):
        render_shared(public=own, seated=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PublicView(own, made_by=object())
    public = public_view(doc, version=3)
    assert not any(seat.get("cards") for seat in public.data["seats"])
    shared = render_shared(public=public, seated=True)
    assert 'class="card back"' in shared.spectators()  # the hands dealt, face down
    assert face_up(shared.spectators()) == []


def test_each_viewer_s_frame_is_the_shared_part_with_their_own_parts_spliced_in() -> None:
    doc = _high_stakes_doc()
    for language in ("en", "bg"):
        with translation.override(language):
            for user_id in (*doc["hand"]["players"], 99, None):
                view = build_view(doc, user_id=user_id, version=3)
                public = public_view(doc, version=3)
                shared = render_shared(public=public, seated=view["seated"], action_id="a")
                spliced = frame(shared=shared, view=view, announce=["ann bets"], error="no", action_id="a")
                page = render_regions(view=view, announce=["ann bets"], error="no", action_id="a")
                assert spliced == page
                assert len(face_up(spliced)) == (3 if view["seated"] else 0)  # own cards only


def test_the_sockets_of_a_table_share_one_render_of_a_version_per_language() -> None:
    forget_shared()
    doc = _high_stakes_doc()
    with translation.override("en"):
        first = shared_regions(table_id=7, doc=doc, version=3, seated=True)
        assert shared_regions(table_id=7, doc=doc, version=3, seated=True) is first
        assert shared_regions(table_id=7, doc=doc, version=3, seated=False) is not first  # sit forms
        assert shared_regions(table_id=7, doc=doc, version=4, seated=True) is not first
    with translation.override("bg"):
        assert shared_regions(table_id=7, doc=doc, version=4, seated=True).texts != first.texts
