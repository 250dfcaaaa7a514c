"""The table's rules in one place (games/engine/table_rules.py), and everyone asking there."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from games.engine import table_rules
from games.engine.hand import Hand

ROOT = Path(__file__).resolve().parents[2]


@given(stake=st.sampled_from(table_rules.STAKES), chips=st.integers(0, 100_000))
def test_a_seat_is_dealt_in_exactly_when_the_rule_says(stake: int, chips: int) -> None:
    other = table_rules.chips_to_be_dealt_in(stake)
    hand_ok = table_rules.can_be_dealt_in(chips=chips, stake=stake)
    seeds = {"server_seed": "ab" * 32, "client_seeds": [], "nonce": 1}
    chips_each = [chips, other, other]
    hand = Hand.start(
        stake=stake, names=["a", "b", "c"], chips=chips_each, dealer=1, dark_play=False, seeds=seeds
    )
    assert hand.in_hand[0] is hand_ok


def test_the_buy_in_range_is_twenty_to_a_hundred_stakes_fifty_by_default() -> None:
    assert table_rules.buy_in_range(10) == (200, 1000, 500)
    assert table_rules.buy_in_range(1000) == (20_000, 100_000, 50_000)


def test_no_module_writes_the_rules_again() -> None:
    """ "Two stakes to be dealt in" and the buy-in range are written once, in table_rules."""
    copies = []
    for path in (ROOT / "games").rglob("*.py"):
        if path.name == "table_rules.py" or "migrations" in path.parts:
            continue
        text = path.read_text()
        for needle in ('2 * doc["table"]["stake"]', "2 * table.stake", "20 * self.stake", "100 * self.stake",
                       "20 * stake", "100 * stake"):  # fmt: skip
            if needle in text:
                copies.append(f"{path.relative_to(ROOT)}: {needle}")
    assert copies == []
