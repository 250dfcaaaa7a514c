"""The database work of a hand: a query budget per hand start and per settlement, and the
guarantees the bulk writes must keep (one record per hand, safe repeats, a clean audit).

The budgets pin what bench/load.py needs: every hand runs these statements on the server's one
database thread. Measured on PostgreSQL before the bulk writes: a heads-up start took 17
statements (begin_hand_record 5 + record_hand_start 12; 25 with four players) and its settlement
26 (36 with four); now 6 (8 for a seed series' first hand) and 14 (the chain head and the
standings included), whatever the number of players.
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import LedgerAccount, LedgerTransaction
from accounts.services import LedgerError, seat_balance
from games.engine.hand import Hand
from games.live import records, service
from games.live import transitions as t
from games.live.document import Doc, copy_doc, new_table_doc
from games.models import HandPlayer, PlayedHand, Seat, Table
from tests.live.tablekit import make_player, make_table

# Statements, counting BEGIN/COMMIT (or the test's SAVEPOINT/RELEASE): the same on both databases.
# Number the hand, find the table's open seed series, its record, its players' rows; the first hand
# of a series also opens it (the last series' number, the new row): 3 more. And the play-time
# limits of those dealt in (responsible play): one statement, found or not.
START_BUDGET = 7
FIRST_OF_SERIES_BUDGET = START_BUDGET + 2
# Lock the record, the ledger posting, the chain head, the stored hand, its players' rows, the standings
# (the one summary of hands: the profile's own counters, one statement more, are gone).
SETTLE_BUDGET = 14


def seated(n: int, *, buy_in: int = 500) -> tuple[Table, Doc]:
    table = make_table(seat_count=max(2, n), dark_play=False)
    for pos in range(n):
        user = make_player(f"p{pos}")
        records.sit_down(user=user, table_id=table.pk, position=pos, buy_in=buy_in)
    doc = new_table_doc(table=records.table_settings(table), seats=records.seats_from_db(table))
    return table, doc


def begin(table_id: int, doc: Doc) -> tuple[Doc, records.Lineup]:
    """What start_next_hand does around the store write: number and record, then deal."""
    lineup = records.Lineup.of_doc(doc)
    number, started, seed = records.begin_hand_record(table_id=table_id, lineup=lineup)
    doc = t.start_hand(doc, number=number, now=time.time(), started_at=started.isoformat(), server_seed=seed)
    return doc, lineup


def fold_out(doc: Doc) -> Doc:
    """Everyone to act folds until one player is left: the hand ends."""
    while doc["hand"]:
        hand = doc["hand"]
        user_id = hand["players"][Hand.from_json(hand["state"]).to_act]
        doc = t.apply_move(doc, user_id=user_id, verb="fold", amount=None, now=time.time(), action_id=None)
    return doc


def rows(number: int) -> list[tuple[int, int, int, int, bool]]:
    return sorted(
        HandPlayer.objects.filter(hand__number=number).values_list(
            "user_id", "position", "chips_before", "chips_after", "won"
        )
    )


@pytest.mark.django_db
@pytest.mark.parametrize("players", [2, 4])
def test_a_hand_starts_and_settles_within_its_query_budget(players, django_assert_max_num_queries):
    table, doc = seated(players)
    with django_assert_max_num_queries(FIRST_OF_SERIES_BUDGET):
        begin(table.pk, copy_doc(doc))
    with django_assert_max_num_queries(START_BUDGET):
        doc, lineup = begin(table.pk, doc)
    assert records.Lineup.of_hand(doc["hand"]) == lineup  # nothing to correct afterwards
    number = doc["hand"]["number"]
    assert [r[0] for r in rows(number)] == sorted(lineup.players)
    doc = fold_out(doc)
    with django_assert_max_num_queries(SETTLE_BUDGET):  # whatever the number of players
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
    record = PlayedHand.objects.get(table=table, number=number)
    assert record.status == PlayedHand.Status.FINISHED and record.pot == 10 * players
    winner = doc["ended"]["players"][Hand.from_json(doc["ended"]["state"]).winner]
    assert record.winner_id == winner
    for user_id, _pos, before, after, won in rows(number):
        assert before == 500 and won == (user_id == winner)
        assert after == (500 + 10 * (players - 1) if won else 490)
        assert seat_balance(user=Seat.objects.get(user_id=user_id).user, table_id=table.pk) == after
    call_command("audit_chips")  # exits 1 on any mismatch
    # Each player's row carries its hand's start and status (the history lists by them).
    assert set(HandPlayer.objects.filter(hand=record).values_list("started_at", "hand_status")) == {
        (record.started_at, PlayedHand.Status.FINISHED)
    }


@pytest.mark.django_db
def test_a_cancelled_hand_is_cancelled_on_its_players_rows():
    table, doc = seated(3)
    doc, _ = begin(table.pk, doc)
    number = doc["hand"]["number"]
    assert set(HandPlayer.objects.filter(hand__number=number).values_list("hand_status", flat=True)) == {
        PlayedHand.Status.IN_PLAY
    }
    assert records.cancel_open_hands(table_id=table.pk, reason="the store lost it") == [number]
    assert set(HandPlayer.objects.filter(hand__number=number).values_list("hand_status", flat=True)) == {
        PlayedHand.Status.CANCELLED
    }


@pytest.mark.django_db
def test_settling_twice_moves_chips_once_and_writes_the_same_rows(django_assert_max_num_queries):
    table, doc = seated(2)
    doc, _ = begin(table.pk, doc)
    number = doc["hand"]["number"]
    doc = fold_out(doc)
    records.settle_hand(table_id=table.pk, ended=doc["ended"])
    first = rows(number)
    with django_assert_max_num_queries(3):  # the locked record says it is finished
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
    assert rows(number) == first
    assert LedgerTransaction.objects.filter(kind="hand_settle").count() == 1
    call_command("audit_chips")


@pytest.mark.django_db
def test_a_settlement_whose_ledger_refuses_writes_nothing():
    table, doc = seated(2)
    doc, _ = begin(table.pk, doc)
    number = doc["hand"]["number"]
    doc = fold_out(doc)
    # A seat that holds less than the hand says it lost (chips taken out behind the table's back).
    loser = doc["ended"]["players"][1 - Hand.from_json(doc["ended"]["state"]).winner]
    LedgerAccount.objects.filter(user_id=loser, kind="seat").update(balance=5)
    with pytest.raises(LedgerError):
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
    assert PlayedHand.objects.get(table=table, number=number).status == PlayedHand.Status.IN_PLAY
    assert not LedgerTransaction.objects.filter(kind="hand_settle").exists()
    assert [r[2:4] for r in rows(number)] == [(500, 500), (500, 500)]


@pytest.mark.django_db
def test_record_hand_start_puts_right_a_record_made_with_another_lineup_and_is_safe_to_repeat():
    table, doc = seated(3)
    stale = records.Lineup.of_doc(doc)
    # Between the service's read and the deal, the player at seat 2 sat out and seat 0 added chips.
    doc["seats"][2]["sitting_out"] = True
    doc["seats"][0]["chips"] = 700
    doc["seats"][0]["client_seed"] = "mine"
    number, started, seed = records.begin_hand_record(table_id=table.pk, lineup=stale)
    doc = t.start_hand(doc, number=number, now=time.time(), started_at=started.isoformat(), server_seed=seed)
    hand = doc["hand"]
    assert records.Lineup.of_hand(hand) != stale
    for _ in range(2):
        records.record_hand_start(table_id=table.pk, hand=hand)
        by_user = {r[0]: r for r in rows(number)}
        assert sorted(by_user) == sorted(hand["players"])
        assert by_user[doc["seats"][0]["user_id"]][2:4] == (700, 700)
        assert PlayedHand.objects.get(table=table, number=number).client_seeds == hand["client_seeds"]
    assert "mine" in hand["client_seeds"]


@pytest.mark.django_db
def test_an_abandoned_number_is_cancelled_and_in_nobody_s_history():
    table, doc = seated(2)
    doc, _ = begin(table.pk, doc)
    number = doc["hand"]["number"]
    records.abandon_hand_record(table_id=table.pk, number=number)
    assert PlayedHand.objects.get(table=table, number=number).status == PlayedHand.Status.CANCELLED
    assert rows(number) == []


@pytest.mark.django_db
def test_hand_numbers_count_up_per_table():
    table, doc = seated(2)
    other = make_table(name="other")
    numbers = [records.begin_hand_record(table_id=table.pk)[0] for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert records.begin_hand_record(table_id=other.pk)[0] == 1
    with pytest.raises(Table.DoesNotExist):
        records.begin_hand_record(table_id=other.pk + 1000)


# ---------------------------------------------------------------- through the service


class DbThreadQueries:
    """Statements run on Channels' database thread (where the service sends its database work)
    between ``start`` and ``stop``."""

    def __init__(self) -> None:
        self.context = CaptureQueriesContext(connection)

    async def start(self) -> None:
        await service.in_db(self.context.__enter__)()

    async def stop(self) -> list[str]:
        await service.in_db(self.context.__exit__)(None, None, None)
        return [q["sql"] for q in self.context.captured_queries]


@pytest.mark.django_db(transaction=True)
async def test_the_service_starts_and_settles_a_heads_up_hand_within_the_budget():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)(dark_play=False)
    for pos, user in enumerate((ann, bob)):
        await service.table_sit(user=user, table_id=table.pk, position=pos, buy_in=500)
    queries = DbThreadQueries()
    await queries.start()
    state = await service.start_next_hand(table_id=table.pk)
    started = await queries.stop()
    assert state.doc["hand"] is not None
    assert len(started) <= START_BUDGET, "\n".join(started)  # no second call to correct the record

    hand = state.doc["hand"]
    to_act = hand["players"][Hand.from_json(hand["state"]).to_act]
    await queries.start()
    state = await service.table_act(
        user=ann if to_act == ann.pk else bob,
        table_id=table.pk,
        verb="fold",
        amount=None,
        client_version=state.version,
        action_id="fold-1",
        epoch=state.doc["epoch"],
    )
    settled = await queries.stop()
    assert state.doc["ended"] is None and state.doc["last"]["number"] == hand["number"]
    assert len(settled) <= SETTLE_BUDGET, "\n".join(settled)
    await service.in_db(call_command)("audit_chips")
