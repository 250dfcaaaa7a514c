"""What the table's live region is told after each frame (games/tables/ui/announce.py): the moves of
everyone, the turn when it comes, a svara and a result, short and in the viewer's language."""

# ruff: noqa: RUF001

from __future__ import annotations

import re

from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from games.live import transitions as t
from games.live.document import Doc, hand_of, new_table_doc, seat_entry
from games.live.entries import LOG_KEPT, entry
from games.live.views import build_view
from games.tables.ui.announce import NEW_LINES_SAID, announcement, new_entries, said_line
from games.tables.ui.regions import render_regions

ANN, BOB = 1, 2


def _doc() -> Doc:
    table = {"id": 3, "name": "elm", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[
            seat_entry(user_id=ANN, name="ann", chips=500),
            seat_entry(user_id=BOB, name="bob", chips=500),
        ],
    )
    doc["dealer"] = 0  # bob deals hand 1: ann acts first
    return t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")


def _to_act(doc: Doc) -> int:
    return doc["hand"]["players"][hand_of(doc).to_act]


def _move(doc: Doc, verb: str, amount: int | None = None) -> Doc:
    return t.apply_move(doc, user_id=_to_act(doc), verb=verb, amount=amount, now=2.0, action_id=None)


def test_a_hand_is_told_move_by_move_with_the_turn_when_it_comes() -> None:
    docs = [_doc()]
    assert _to_act(docs[0]) == ANN
    for verb, amount in (("dark", 10), ("decline", None), ("raise", 40)):
        docs.append(_move(docs[-1], verb, amount))
    said: dict[int, list[list[str]]] = {ANN: [], BOB: []}
    for user in (ANN, BOB):
        before = None
        for version, doc in enumerate(docs, 1):
            view = build_view(doc, user_id=user, version=version)
            said[user].append(announcement(before=before, after=view))
            before = view
    # ann's first frame: her turn; then her dark bet; bob declines; bob raises, and it is ann's turn.
    assert said[ANN] == [
        ["Your turn: bet 10 dark, or not"],
        ["ann bets 10 dark"],
        ["bob does not bet dark"],
        ["bob raises to 40", "Your turn, 30 to call"],
    ]
    assert said[BOB] == [
        [],
        ["ann bets 10 dark", "Your turn: bet 20 dark, or not"],
        ["bob does not bet dark", "Your turn, 20 to call"],
        ["bob raises to 40"],
    ]


def test_the_result_and_a_svara_are_said_short_in_both_languages() -> None:
    win = entry("%(name)s wins %(pot)s. Seed revealed: %(seed)s…", name="bob", pot=1075, seed="ab" * 8)
    svara = entry(
        "Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed (join for %(fee)s)",
        names=["ann", "bob"],
        points=30,
        pot=40,
        fee=20,
    )
    assert said_line(win) == "bob won 1,075"
    assert said_line(entry("%(name)s wins %(pot)s.", name="bob", pot=75)) == "bob won 75"
    assert said_line(svara) == "Svara! ann and bob tie on 30"
    with translation.override("bg"):
        assert said_line(win) == "bob спечели 1\xa0075"
        assert said_line(svara) == "Свара! ann и bob са равни на 30 точки"
        assert said_line(entry("%(name)s folds", name="Computer (easy)")) == "Компютър (лесен) се отказва"


def test_a_refusal_is_said_alone_and_a_reconnect_says_no_backlog() -> None:
    doc = _doc()
    view = build_view(doc, user_id=ANN, version=1)
    assert announcement(before=view, after=view, error="not your turn") == ["not your turn"]
    assert announcement(before=view, after=view) == []  # nothing new: nothing said
    # A frame after many changes (a reconnect) tells the turn, not every line in between.
    later = dict(view, log=view["log"] + [entry("%(name)s folds", name="bob")] * (NEW_LINES_SAID + 1))
    assert announcement(before=view, after=later) == ["Your turn: bet 10 dark, or not"]


def test_the_regions_carry_the_lines_for_the_live_region_and_no_region_is_live() -> None:
    doc = _doc()
    view = build_view(doc, user_id=ANN, version=1)
    first_paint = render_regions(view=view)
    assert 'id="table-announce"' not in first_paint  # the page's own element is the live region
    frame = render_regions(view=view, announce=["bob raises to 40", "Your turn, 30 to call"])
    said = "<p>bob raises to 40</p><p>Your turn, 30 to call</p>"
    assert f'<div id="table-announce" hx-swap-oob="innerHTML">{said}</div>' in frame
    assert "aria-live" not in frame and 'role="status"' not in frame
    # Each seat is a labelled group; the dealer's button is read as a word.
    labels = re.findall(r'role="group" aria-label="([^"]*)"', frame)
    assert labels == ["ann (you), 490 chips, to act", "bob, 490 chips, dealer"]
    assert '<span class="visually-hidden">dealer</span>' in frame
    assert 'id="table-log-box" tabindex="0"' in frame
    with translation.override("bg"):
        bulgarian = render_regions(view=build_view(doc, user_id=BOB, version=1))
    assert re.findall(r'role="group" aria-label="([^"]*)"', bulgarian) == [
        "ann, 490 чипа, на ход",
        "bob (вие), 490 чипа, раздаващ",
    ]


entries = st.lists(st.integers(0, 5).map(lambda n: entry("%(name)s folds", name=f"p{n}")), max_size=LOG_KEPT)


@given(before=entries, added=st.lists(st.integers(0, 5), max_size=NEW_LINES_SAID), dropped=st.integers(0, 8))
def test_the_lines_found_new_are_the_lines_added(before: list, added: list[int], dropped: int) -> None:
    new = [entry("%(name)s raises to %(amount)s", name="q", amount=n) for n in added]
    after = (before + new)[-LOG_KEPT:]
    found = new_entries(before, after)
    # What was added is found whenever the log kept it; nothing when the log had no line in common.
    if len(after) > len(new) or not before:
        assert found == new
    assert new_entries(after, after) == []
    assert new_entries(before, before[dropped:]) == []
