"""The time a player has to act (games/live/turn_time.py, and the transitions that use it): a practice
turn with no clock, and the time bank of a real table over any sitting."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.live import transitions as t
from games.live.document import Doc, hand_of, new_table_doc, seat_entry
from games.live.entries import log_text
from games.live.turn_time import NO_LIMIT, clock_out, turn_deadline

BANK = 30


def test_a_turn_with_no_clock_has_no_deadline() -> None:
    assert turn_deadline(now=100.0, seconds=NO_LIMIT) is None
    assert turn_deadline(now=100.0, seconds=30) == 130.0


def test_the_bank_is_drawn_whole_once_and_never_by_a_seat_without_one() -> None:
    assert clock_out(bank=None, size=BANK, has_bank=True) == (BANK, 0)  # not drawn yet this sitting
    assert clock_out(bank=0, size=BANK, has_bank=True) == (0, 0)
    assert clock_out(bank=None, size=BANK, has_bank=False) == (0, BANK)  # the computer
    assert clock_out(bank=None, size=0, has_bank=True) == (0, 0)  # a table without a bank


@given(
    turns=st.lists(st.booleans(), max_size=60),  # each turn: True when the player let the clock run out
    start=st.one_of(st.none(), st.integers(-5, 2 * BANK)),
    size=st.integers(0, 2 * BANK),
    has_bank=st.booleans(),
)
def test_over_a_sitting_the_bank_gives_at_most_its_seconds_and_saves_one_timeout(
    turns: list[bool], start: int | None, size: int, has_bank: bool
) -> None:
    bank, extra_total, folds = start, 0, 0
    for ran_out in turns:
        if not ran_out:
            continue
        extra, bank = clock_out(bank=bank, size=size, has_bank=has_bank)
        assert extra >= 0 and 0 <= bank <= size
        extra_total += extra
        if extra == 0:
            folds += 1  # the clock acts for the player, as without a bank
        # else that turn goes on for the extra seconds (here the player acts within them)
    assert extra_total <= size
    saved = 1 if has_bank and size > 0 and (start is None or start > 0) and any(turns) else 0
    assert extra_total > 0 if saved else extra_total == 0
    assert folds == sum(turns) - saved


def _table(*, time_bank: int, turn_seconds: int = 30, kind: str = "cash") -> Doc:
    table = {
        "id": 5,
        "name": "t",
        "stake": 10,
        "seat_count": 2,
        "dark_play": False,
        "turn_seconds": turn_seconds,
    }
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": kind, "time_bank": time_bank},
        seats=[seat_entry(user_id=1, name="ann", chips=500), seat_entry(user_id=2, name="bob", chips=500)],
    )
    return t.start_hand(doc, number=1, now=0.0, started_at="2026-01-01T00:00:00+00:00")


def test_a_real_tables_clock_draws_the_bank_once_then_acts() -> None:
    doc = _table(time_bank=BANK)
    to_act = hand_of(doc).to_act
    assert doc["timer"] == {"kind": "turn", "at": 30.0}
    banked = t.apply_timeout(doc, now=30.0)
    assert hand_of(banked).to_act == to_act  # not folded: the turn goes on
    assert banked["timer"] == {"kind": "turn", "at": 60.0, "bank": True}
    name = doc["seats"][doc["hand"]["positions"][to_act]]["name"]
    assert log_text(banked)[-1] == f"{name} uses the time bank: 30 s more"
    folded = t.apply_timeout(banked, now=60.0)
    assert folded["hand"] is None or hand_of(folded).to_act != to_act
    assert f"{name} ran out of time" in log_text(folded)
    # The bank is spent for the sitting: the next time the clock runs out it acts at once.
    assert folded["seats"][doc["hand"]["positions"][to_act]]["bank"] == 0


def test_without_a_bank_the_clock_acts_at_once_and_a_practice_turn_can_have_no_clock() -> None:
    doc = _table(time_bank=0)
    assert "ran out of time" in log_text(t.apply_timeout(doc, now=30.0))[-2]
    unclocked = _table(time_bank=0, turn_seconds=NO_LIMIT, kind="practice")
    assert unclocked["hand"] is not None and unclocked["timer"] is None
