"""The seat's limits under concurrent requests: each limit and its ledger move in one locked step.

PostgreSQL only (``postgres_db``): real row locks, one thread and connection per request."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth import get_user_model

from accounts.services import audit_ledger, seat_balance, wallet_adjust, wallet_balance
from games.live import records
from games.live.document import Refused
from tests.accounts.test_concurrency import run_together
from tests.live.tablekit import make_player, make_table

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REQUESTS = 20


def test_twenty_concurrent_adds_never_take_a_seat_past_its_most(postgres_db) -> None:
    ann = make_player("ann")
    staff = get_user_model().objects.create_superuser(username="staff", password="pw-for-tests-1")
    # Enough in the wallet for every add: only the seat's limit may stop them.
    wallet_adjust(user=ann, amount=20 * 500, reason="test funds", staff_user=staff)
    table = make_table(stake=10)  # a seat holds at most 1,000
    records.sit_down(user=ann, table_id=table.pk, position=0, buy_in=200)
    wallet_before = wallet_balance(user=ann)

    results = run_together([lambda: records.add_chips(user=ann, table_id=table.pk, amount=500)] * REQUESTS)

    outcomes = Counter("ok" if isinstance(r, int) else type(r).__name__ for r in results)
    assert outcomes == Counter({"ok": 1, Refused.__name__: REQUESTS - 1})
    assert seat_balance(user=ann, table_id=table.pk) == 700
    assert wallet_balance(user=ann) == wallet_before - 500
    assert audit_ledger().ok


def test_two_tabs_sitting_down_as_the_loss_limit_is_reached_only_one_is_seated(postgres_db) -> None:
    """Responsible play (issue 36), the table's own path: two tabs sit at two tables at once, each
    buy-in within the day's loss limit alone, both together over it. The limit's row lock in the
    buy-in decides them one after the other: one seat, one refusal that moved nothing."""
    from accounts.services.responsible import set_loss_limit

    ann = make_player("ann")
    set_loss_limit(user=ann, period="day", amount=300)
    tables = [make_table(stake=10, name=f"tab {i}") for i in (1, 2)]

    results = run_together(
        [lambda t=t: records.sit_down(user=ann, table_id=t.pk, position=0, buy_in=200) for t in tables]
    )

    refused = [r for r in results if isinstance(r, Refused)]
    assert len(refused) == 1 and "loss limit for the day" in str(refused[0]), results
    assert sum(isinstance(r, dict) for r in results) == 1
    assert wallet_balance(user=ann) == 800
    assert sorted(seat_balance(user=ann, table_id=t.pk) for t in tables) == [0, 200]
    from games.models import Seat

    assert Seat.objects.filter(user=ann).count() == 1  # the refused tab's seat row rolled back
    assert audit_ledger().ok
