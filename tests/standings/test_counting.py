"""The standings: what a settled hand adds, and the incremental summary against the one rebuilt
from the stored hands (random hands, a differential property test; and real hands settled by the
table service's records)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import LedgerEntry
from games.live import records
from games.models import HandPlayer, PlayedHand, Standing
from games.standings.counting import count_hand
from games.standings.periods import ALL_TIME, starts_of
from games.standings.rebuild import rebuild_standings
from tests.live.tablekit import make_player, make_table
from tests.live.test_records_queries import begin, fold_out, seated
from tests.standings.handkit import stored

pytestmark = pytest.mark.django_db

FIELDS = ("user_id", "period", "starts", "stake", "hands", "won", "net", "biggest_pot")


def snapshot() -> list[tuple]:
    return sorted(Standing.objects.values_list(*FIELDS))


def test_periods_start_on_the_day_the_monday_and_the_first():
    starts = starts_of(datetime(2026, 12, 3, 23, 59, tzinfo=UTC))  # a Thursday
    assert starts == {
        "day": date(2026, 12, 3),
        "week": date(2026, 11, 30),
        "month": date(2026, 12, 1),
        "all": ALL_TIME,
    }


def test_a_hand_adds_to_each_period_and_the_stake_and_keeps_the_biggest_pot():
    ann, bob = make_player("ann"), make_player("bob")
    at = datetime(2026, 12, 3, 12, tzinfo=UTC)
    count_hand(at=at, stake=50, pot=300, winner_id=ann.pk, nets={ann.pk: 150, bob.pk: -150})
    count_hand(at=at + timedelta(days=7), stake=10, pot=40, winner_id=ann.pk, nets={ann.pk: 20, bob.pk: -20})
    rows = {(r[0], r[1], r[2], r[3]): r[4:] for r in snapshot()}
    assert rows[(ann.pk, "all", ALL_TIME, 0)] == (2, 2, 170, 300)
    assert rows[(bob.pk, "all", ALL_TIME, 0)] == (2, 0, -170, 0)
    assert rows[(ann.pk, "all", ALL_TIME, 50)] == (1, 1, 150, 300)
    assert rows[(ann.pk, "all", ALL_TIME, 10)] == (1, 1, 20, 40)
    assert rows[(ann.pk, "week", date(2026, 11, 30), 0)] == (1, 1, 150, 300)
    assert rows[(ann.pk, "week", date(2026, 12, 7), 0)] == (1, 1, 20, 40)
    assert rows[(ann.pk, "month", date(2026, 12, 1), 0)] == (2, 2, 170, 300)
    assert rows[(bob.pk, "day", date(2026, 12, 10), 0)] == (1, 0, -20, 0)
    assert len(rows) == 2 * (2 + 2 + 1 + 1 + 2)  # two days, two weeks, one month, all time, two stakes


T0 = datetime(2026, 1, 1, tzinfo=UTC)
hands_strategy = st.lists(
    st.tuples(
        st.integers(0, 3),  # the table: stake 10, stake 50, a private table at 200, practice
        st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True),  # who played
        st.integers(0, 3),  # the winner among them (modulo)
        st.lists(st.integers(0, 500), min_size=4, max_size=4),  # what each loser lost
        st.integers(0, 120 * 24 * 60),  # minutes after T0: four months, across weeks and months
        st.sampled_from(["finished", "finished", "finished", "cancelled"]),
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hands=hands_strategy)
def test_the_summary_kept_hand_by_hand_equals_the_one_rebuilt_from_the_stored_hands(
    hands, players_and_tables
):
    players, tables = players_and_tables
    with transaction.atomic():
        for table_index, who, winner, losses, minutes, status in hands:
            ids = [players[i].pk for i in who]
            winner_id = ids[winner % len(ids)]
            nets = {uid: -losses[i] for i, uid in enumerate(ids) if uid != winner_id}
            nets[winner_id] = -sum(nets.values())
            pot = sum(losses) + tables[table_index].stake
            stored(
                table=tables[table_index],
                at=T0 + timedelta(minutes=minutes),
                nets=nets,
                winner_id=winner_id,
                pot=pot,
                status=status,
            )
        kept = snapshot()
        rebuild_standings()
        assert snapshot() == kept
        # The summary holds the ledger's sum: what the players won, less what they lost, is nothing.
        assert sum(r[6] for r in kept if r[1] == "all" and r[3] == 0) == 0
        transaction.set_rollback(True)


@pytest.fixture
def players_and_tables():
    players = [make_player(name) for name in ("ann", "bob", "cem", "dan")]
    tables = [
        make_table(name="ten", stake=10, seat_count=4),
        make_table(name="fifty", stake=50, seat_count=4),
        make_table(name="private", stake=200, seat_count=4, private=True),
        make_table(name="practice", stake=10, seat_count=4, kind="practice"),
    ]
    return players, tables


def test_settled_hands_are_counted_once_and_practice_not_at_all():
    table, doc = seated(3)
    for _ in range(3):
        doc, _lineup = begin(table.pk, doc)
        doc = fold_out(doc)
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
        records.settle_hand(table_id=table.pk, ended=doc["ended"])  # a retry counts nothing more
        doc["ended"] = None
    alltime = Standing.objects.filter(period="all", stake=0)
    assert sorted(alltime.values_list("hands", flat=True)) == [3, 3, 3]
    assert sum(alltime.values_list("net", flat=True)) == 0
    assert sum(alltime.values_list("won", flat=True)) == 3
    assert set(Standing.objects.filter(period="all").exclude(stake=0).values_list("stake", flat=True)) == {10}
    # What the summary says each player won is what the ledger's settlements paid their seats.
    paid = dict(
        LedgerEntry.objects.filter(transaction__kind="hand_settle", account__kind="seat")
        .values_list("account__user_id")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    nets = dict(alltime.values_list("user_id", "net"))
    assert paid and set(paid) <= set(nets)
    assert all(net == paid.get(uid, 0) for uid, net in nets.items())
    kept = snapshot()
    call_command("rebuild_standings")
    assert snapshot() == kept
    # A practice table's hand goes to its seats' practice chips, not to the standings.
    practice = make_table(name="practice", kind="practice")
    HandPlayer.objects.filter(hand__table=table).update()  # nothing to change: the real hands stay
    PlayedHand.objects.filter(table=table).update(table=practice)
    rebuild_standings()
    assert snapshot() == []


def test_a_summary_that_went_wrong_is_put_right_by_the_command(capsys):
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(stake=50)
    stored(table=table, at=T0, nets={ann.pk: 40, bob.pk: -40}, winner_id=ann.pk, pot=90)
    right = snapshot()
    call_command("rebuild_standings", "--check")
    assert "OK" in capsys.readouterr().out
    Standing.objects.filter(user=ann, period="all").update(net=999_999)
    Standing.objects.create(user=bob, period="week", starts=date(2020, 1, 6), hands=5)
    with pytest.raises(CommandError, match="3 standings differ"):
        call_command("rebuild_standings", "--check")
    assert "kept (1, 1, 999999, 90), counted (1, 1, 40, 90)" in capsys.readouterr().out
    assert snapshot() != right  # the check wrote nothing
    call_command("rebuild_standings")
    assert snapshot() == right
    assert "rows" in capsys.readouterr().out
