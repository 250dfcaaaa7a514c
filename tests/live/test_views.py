"""What one viewer may see (games/live/views.py): the parts not covered by the socket tests."""

from __future__ import annotations

import orjson
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from games.live import transitions as t
from games.live import views
from games.live.document import copy_doc, hand_of, new_table_doc, seat_entry
from games.live.entries import entry


def doc_with_log(log: list) -> dict:
    doc = new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "practice": False},
        seats=[seat_entry(user_id=1, name="ann", chips=500), None],
    )
    doc["log"] = log
    return doc


def test_log_lines_are_worded_per_language_and_remembered_only_within_it(monkeypatch):
    raise_line = entry("%(name)s raises to %(amount)s", name="ann", amount=40)
    doc = doc_with_log([raise_line, "a staff note, <shown> as written", raise_line])

    english = views.build_view(doc, user_id=1, version=1)["log"]
    with translation.override("bg"):
        bulgarian = views.build_view(doc, user_id=1, version=1)["log"]
    again = views.build_view(doc, user_id=1, version=1)["log"]

    assert english == again == ["ann raises to 40", "a staff note, <shown> as written", "ann raises to 40"]
    assert bulgarian[0] == bulgarian[2] != english[0] and bulgarian[1] == english[1]
    # Another amount is another line, not the remembered one.
    doc["log"] = [entry("%(name)s raises to %(amount)s", name="ann", amount=80)]
    assert views.build_view(doc, user_id=1, version=2)["log"] == ["ann raises to 80"]


def test_the_memory_of_worded_lines_is_bounded(monkeypatch):
    monkeypatch.setattr(views, "LINES_KEPT", 3)
    log = [entry("%(name)s folds", name=f"p{i}") for i in range(5)]
    english = views.active_words()

    for _ in range(2):
        assert views._word_lines(log, english) == [f"p{i} folds" for i in range(5)]
    # Full (3 or more) when the second wording began: forgotten, then this log's five remembered.
    assert len(views._LINES[english]) == 5


def test_viewers_of_one_document_share_its_worded_log_per_language(monkeypatch):
    doc = doc_with_log([entry("%(name)s folds", name="ann"), entry("%(name)s calls", name="bob")])
    ann = views.build_view(doc, user_id=1, version=3)["log"]
    spectator = views.build_view(doc, user_id=None, version=3)["log"]
    with translation.override("bg"):
        bulgarian = views.build_view(doc, user_id=None, version=3)["log"]
    changed = copy_doc(doc)
    changed["log"] = [*changed["log"], entry("%(name)s folds", name="bob")]

    assert ann is spectator  # worded once for both
    assert bulgarian is not ann and bulgarian != ann
    # The next document's log is its own list: worded again, never the old lines.
    assert views.build_view(changed, user_id=1, version=4)["log"] == ["ann folds", "bob calls", "bob folds"]
    monkeypatch.setattr(views, "WORDED_KEPT", 1)
    assert views.build_view(doc, user_id=1, version=3)["log"] == ["ann folds", "bob calls"]


def _worded(doc: dict) -> views.WordedLog:
    return views.worded_log(doc)


def test_a_log_that_moved_on_is_worded_from_the_last_one_and_equals_wording_it_whole():
    lines = [entry("%(name)s raises to %(amount)s", name="<ann>", amount=n) for n in range(40)]
    doc = doc_with_log(lines)
    first = _worded(doc)
    moved = doc_with_log([*lines[2:], entry("%(name)s folds", name="bo & co"), "a <b>staff</b> note"])
    followed = _worded(moved)
    views._WORDED.clear()
    whole = _worded(copy_doc(moved))

    assert followed.lines == whole.lines and followed.items == whole.items
    assert followed.lines[-2:] == ["bo & co folds", "a <b>staff</b> note"]
    assert followed.lines[:38] == first.lines[2:]
    assert str(followed.html).endswith("<li>bo &amp; co folds</li><li>a &lt;b&gt;staff&lt;/b&gt; note</li>")
    assert str(followed.html).startswith("<li>&lt;ann&gt; raises to 2</li>")


entries = st.one_of(
    st.builds(lambda n: entry("%(name)s folds", name=n), st.sampled_from(["ann", "<bob>", "c&d"])),
    st.builds(lambda a: entry("%(name)s raises to %(amount)s", name="ann", amount=a), st.integers(0, 9)),
    st.sampled_from(["a <b>staff</b> note", "plain"]),
)


@settings(max_examples=150, deadline=None)
@given(
    first=st.lists(entries, max_size=8),
    steps=st.lists(st.tuples(st.integers(0, 6), st.lists(entries, max_size=6)), max_size=6),
    language=st.sampled_from(["en", "bg"]),
)
def test_a_log_worded_from_the_last_one_equals_the_log_worded_whole(first, steps, language):
    """Differential: whatever the changes (lines dropped from the start, lines added, or a log
    that does not follow at all), the remembered wording equals wording each line afresh."""
    views._WORDED.clear()
    log = list(first)
    with translation.override(language):
        for dropped, added in [(0, []), *steps]:
            # As another process decodes each document: equal entries, none of them the same object.
            log = orjson.loads(orjson.dumps(log[dropped:] + added))
            worded = views.worded_log(doc_with_log(log))
            expected = [views.render_entry(item) for item in log]
            assert worded.lines == expected
            assert str(worded.html) == "".join(f"<li>{escape(line)}</li>" for line in expected)


def _seat_chips(doc: dict) -> list[int]:
    seats = views.build_view(doc, user_id=None, version=1)["seats"]
    return [seat["chips"] for seat in seats if not seat["empty"]]


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(), players=st.integers(2, 4), dark=st.booleans(), seed=st.binary(min_size=32, max_size=32)
)
def test_an_ended_hand_shows_the_chips_it_ended_with_before_it_is_settled(data, players, dark, seed):
    """From the last move until the settlement lands (the worker's next tick, or later under
    load) the seats showed what each had before the hand; they show its result at once."""
    table = {"id": 1, "name": "t", "stake": 10, "seat_count": 4, "dark_play": dark, "turn_seconds": 30}
    seats = [seat_entry(user_id=n + 1, name=f"p{n}", chips=500) for n in range(players)]
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "practice": False},
        seats=seats + [None] * (4 - players),
    )
    doc = t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00", server_seed=seed.hex())
    for step in range(200):
        if not doc["hand"]:
            break
        if t.in_svara_pause(doc):  # a tie: its timer deals the replay
            doc = t.end_svara_pause(doc, now=2.0 + step)
            continue
        hand = hand_of(doc)
        legal = hand.legal()
        verb = data.draw(st.sampled_from(legal.verbs))
        amount = data.draw(st.integers(*legal.raise_range)) if verb == "raise" else None
        user = doc["hand"]["players"][legal.seat]
        doc = t.apply_move(doc, user_id=user, verb=verb, amount=amount, now=2.0 + step, action_id=f"a{step}")
    assert doc["ended"] and not doc["hand"]
    settled = t.mark_settled(doc, now=500.0, left=[])
    assert _seat_chips(doc) == _seat_chips(settled)
    assert sum(_seat_chips(doc)) == 500 * players  # chips only moved between the players
