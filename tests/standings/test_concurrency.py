"""Settlements at once that share players: every hand counted, no deadlock (each settlement's
upsert takes its row locks in one order). PostgreSQL only: real row locks, a thread each."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from django.db import transaction

from games.models import Standing
from games.standings.counting import count_hand
from games.standings.rebuild import rebuild_standings
from tests.accounts.test_concurrency import run_together
from tests.live.tablekit import make_player, make_table
from tests.standings.handkit import stored

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

HANDS = 16


def test_concurrent_settlements_sharing_players_count_every_hand(postgres_db) -> None:
    players = [make_player(name) for name in ("ann", "bob", "cem", "dan")]
    tables = [make_table(name=f"t{i}", stake=10) for i in range(HANDS)]
    at = datetime(2026, 12, 3, 12, tzinfo=UTC)
    rng = random.Random(5)
    lineups = []
    for _ in range(HANDS):
        who = rng.sample(players, rng.randint(2, 4))
        rng.shuffle(who)  # each in its own order: the upsert must sort them
        lineups.append({p.pk: (-10 if i else 10 * (len(who) - 1)) for i, p in enumerate(who)})

    def settle(i: int):
        def run() -> str:
            nets = lineups[i]
            winner = next(uid for uid, net in nets.items() if net > 0)
            with transaction.atomic():
                # The stored hand's rows and the count in one transaction, as settle_hand does.
                stored(table=tables[i], at=at, nets=nets, winner_id=winner, pot=10 * len(nets), count=False)
                count_hand(at=at, stake=10, pot=10 * len(nets), winner_id=winner, nets=nets)
            return "ok"

        return run

    results = run_together([settle(i) for i in range(HANDS)])
    assert results == ["ok"] * HANDS
    hands = dict(Standing.objects.filter(period="all", stake=0).values_list("user_id", "hands"))
    assert sum(hands.values()) == sum(len(nets) for nets in lineups)
    kept = sorted(Standing.objects.values_list("user_id", "period", "starts", "stake", "hands", "won", "net"))
    rebuild_standings()
    assert (
        sorted(Standing.objects.values_list("user_id", "period", "starts", "stake", "hands", "won", "net"))
        == kept
    )
