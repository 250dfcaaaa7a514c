"""The profile's hand counters: kept by each settlement, equal to a recount of the ledger's hand
settlements after any sequence of settlements (replays and refusals included), filled for the hands
settled before they existed, and read in one query however many hands a player has."""

from __future__ import annotations

import contextlib
import importlib

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import HandCounts, User
from accounts.services import LedgerError, grant_signup_bonus, hand_settle, seat_buy_in
from accounts.services.hand_counts import recount_from_ledger
from accounts.services.profile import HandStats, hand_stats

pytestmark = pytest.mark.django_db


def seated_players(n: int, *, table_id: int = 1) -> list[User]:
    users = []
    for k in range(n):
        user = User.objects.create_user(username=f"hc{table_id}-{k}", password=None)
        grant_signup_bonus(user=user)
        seat_buy_in(user=user, table_id=table_id, amount=800, idempotency_key=f"sit-{user.pk}")
        users.append(user)
    return users


def counters() -> dict[int, tuple[int, int, int]]:
    return {c.user_id: (c.played, c.won, c.biggest_pot) for c in HandCounts.objects.all()}


hands = st.lists(
    st.tuples(
        st.sampled_from([f"h{i}" for i in range(6)]),  # few keys: replays happen
        st.lists(st.integers(-60, 60), min_size=3, max_size=3),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=hands)
def test_the_counters_always_equal_a_recount_of_the_settlements(sequence):
    with transaction.atomic():
        users = seated_players(3)
        for key, amounts in sequence:
            # Balanced by the last player; an unbalanced or overdrawing hand is refused whole.
            deltas = {users[0].pk: amounts[0], users[1].pk: amounts[1], users[2].pk: -amounts[0] - amounts[1]}
            with contextlib.suppress(LedgerError):
                hand_settle(table_id=1, deltas=deltas, idempotency_key=key)
        kept = counters()
        recount_from_ledger()
        assert counters() == kept
        transaction.set_rollback(True)


def test_a_replayed_settlement_is_counted_once():
    ann, bob = seated_players(2)
    for _ in range(3):
        hand_settle(table_id=1, deltas={ann.pk: 70, bob.pk: -70}, idempotency_key="same hand")
    assert hand_stats(user=ann) == HandStats(played=1, won=1, biggest_pot=70)
    assert hand_stats(user=bob) == HandStats(played=1, won=0, biggest_pot=0)


def test_the_migration_counts_the_hands_settled_before_the_counters(client):
    ann, bob = seated_players(2)
    for n, won in enumerate([120, -40, 300, -5]):
        hand_settle(table_id=1, deltas={ann.pk: won, bob.pk: -won}, idempotency_key=f"h{n}")
    expected = counters()
    HandCounts.objects.all().delete()  # as before the migration
    migration = importlib.import_module("accounts.migrations.0011_hand_counts")
    migration.count_hands_settled_so_far(apps, None)
    assert counters() == expected
    assert expected[ann.pk] == (4, 2, 300)


def test_the_profile_reads_the_counters_in_the_same_queries_whatever_the_hands(client):
    ann, bob = seated_players(2)
    client.force_login(ann)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/profile/").status_code == 200
        return len(captured)

    hand_settle(table_id=1, deltas={ann.pk: 5, bob.pk: -5}, idempotency_key="first")
    queries()
    few = queries()
    for n in range(30):
        won = (n % 7) - 3 or 1  # a hand that moves nothing is refused
        hand_settle(table_id=1, deltas={ann.pk: won, bob.pk: -won}, idempotency_key=f"more {n}")
    assert queries() == few
