"""The "hand settled" event (games/live/settled.py): settlement publishes it inside its transaction
to the parts that subscribed, and a part that fails takes the whole settlement back with it."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import LedgerEntry
from games import kinds
from games.live import records, settled
from games.models import HandPlayer, PlayedHand, Standing
from tests.live.test_records_queries import begin, fold_out, seated

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_parts_that_keep_a_settled_hand_have_subscribed_in_order() -> None:
    assert settled.subscribers() == ["chips", "stored hand", "counts", "standings"]
    with pytest.raises(ValueError, match="already subscribed"):
        settled.subscribe("chips")(lambda event: None)


def test_a_subscriber_is_told_inside_the_transaction_after_the_parts_before_it() -> None:
    table, doc = seated(3)
    doc, _lineup = begin(table.pk, doc)
    doc = fold_out(doc)
    told: list[settled.HandSettled] = []

    def watch(event: settled.HandSettled) -> None:
        assert connection.in_atomic_block
        # The parts subscribed before this one have written their share, in this transaction.
        assert PlayedHand.objects.get(table=table, number=event.number).status == PlayedHand.Status.FINISHED
        assert HandPlayer.objects.filter(hand__table=table, hand__number=event.number).count() == 3
        told.append(event)

    with settled.subscribed("watch", watch):
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
        records.settle_hand(table_id=table.pk, ended=doc["ended"])  # settled already: not told again
    assert settled.subscribers() == ["chips", "stored hand", "counts", "standings"]
    [event] = told
    assert (event.table_id, event.number, event.kind) == (table.pk, doc["ended"]["number"], kinds.CASH)
    assert event.players == doc["ended"]["players"] and sum(event.deltas.values()) == 0
    assert sum(event.pots_won.values()) == event.hand.pot > 0


def test_a_subscriber_that_fails_takes_the_whole_settlement_back_and_a_retry_settles_it() -> None:
    table, doc = seated(3)
    doc, _lineup = begin(table.pk, doc)
    doc = fold_out(doc)
    ledger, standings = LedgerEntry.objects.count(), Standing.objects.count()

    def fail(event: settled.HandSettled) -> None:
        raise RuntimeError("the tournament's bust order could not be written")

    counted = _counted()
    with settled.subscribed("fails", fail), pytest.raises(RuntimeError, match="bust order"):
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
    assert _counted() == counted  # the room's count too: nothing was committed
    record = PlayedHand.objects.get(table=table, number=doc["ended"]["number"])
    assert record.status == PlayedHand.Status.IN_PLAY and record.chain_hash == ""
    assert (LedgerEntry.objects.count(), Standing.objects.count()) == (ledger, standings)
    records.settle_hand(table_id=table.pk, ended=doc["ended"])
    record.refresh_from_db()
    assert record.status == PlayedHand.Status.FINISHED and LedgerEntry.objects.count() > ledger
    assert Standing.objects.count() > standings
    records.settle_hand(table_id=table.pk, ended=doc["ended"])  # a retry of a settled hand
    assert _counted() == counted + 1


def _counted() -> float:
    from games.live.metrics import HANDS_SETTLED

    return HANDS_SETTLED.labels(kind="cash")._value.get()


def test_publishing_outside_a_transaction_is_refused() -> None:
    table, doc = seated(2)
    doc, _lineup = begin(table.pk, doc)
    doc = fold_out(doc)
    with pytest.raises(RuntimeError, match="inside the settlement's transaction"):
        settled.publish(_event_of(table.pk, doc["ended"]))


def _event_of(table_id: int, ended: dict) -> settled.HandSettled:
    from django.utils import timezone

    from games.engine.hand import Hand

    return settled.HandSettled(
        table_id=table_id,
        number=ended["number"],
        ended=ended,
        hand=Hand.from_json(ended["state"]),
        players=ended["players"],
        deltas={},
        pots_won={},
        kind=kinds.CASH,
        series_id=None,
        series_number=None,
        record_id=None,
        started_at=None,
        ended_at=timezone.now(),
    )
