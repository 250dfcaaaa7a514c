"""Stored hands written straight to the database, as a settlement leaves them, for the standings'
and the players' pages' tests (and nothing else: the settlement itself is tested in tests/live)."""

from __future__ import annotations

from datetime import datetime

from games.models import HandPlayer, PlayedHand, Table
from games.standings.counting import count_hand


def stored(
    *,
    table: Table,
    at: datetime,
    nets: dict[int, int],
    winner_id: int,
    pot: int,
    status: str = PlayedHand.Status.FINISHED,
    count: bool = True,
) -> PlayedHand:
    """A hand at ``table`` that ended at ``at`` with these chips won and lost, and its players'
    rows; counted into the standings as the settlement counts it (``count``: real tables only)."""
    table.hands_started += 1
    table.save(update_fields=["hands_started"])
    hand = PlayedHand.objects.create(
        table=table,
        number=table.hands_started,
        status=status,
        started_at=at,
        ended_at=at,
        server_seed="0" * 64,
        server_seed_hash="0" * 64,
        pot=pot,
        winner_id=winner_id,
        record={"stake": table.stake},
    )
    HandPlayer.objects.bulk_create(
        HandPlayer(
            hand=hand,
            user_id=uid,
            position=i,
            chips_before=10_000,
            chips_after=10_000 + net,
            won=uid == winner_id,
            pot_won=pot if uid == winner_id else 0,  # what the settlement writes (pots_won)
            started_at=at,
            hand_status=status,
        )
        for i, (uid, net) in enumerate(nets.items())
    )
    if count and status == PlayedHand.Status.FINISHED and table.policy.counted:
        count_hand(at=at, stake=table.stake, pot=pot, winner_id=winner_id, nets=nets)
    return hand
