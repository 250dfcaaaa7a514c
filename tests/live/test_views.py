"""What one viewer may see (games/live/views.py): the parts not covered by the socket tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.live import transitions as t
from games.live import views
from games.live.document import hand_of, new_table_doc, seat_entry


def doc_with_log(log: list) -> dict:
    doc = new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=1, name="ann", chips=500), None],
    )
    doc["log"] = log
    return doc


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
        table=table | {"status": "open", "private": False, "kind": "cash"},
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
