"""What players do at a table, recorded as TableEvents (games.live.events): sitting down with a
buy-in, adding chips, leaving with a cash-out, sitting out and back, running out of time."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import async_to_sync
from django.db import transaction

from games.live import events, service
from games.live import transitions as t
from games.live.document import copy_doc, hand_of
from games.models import TableEvent
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def hand_in_play():
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table()
    for position, user in enumerate((ann, bob)):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=500)
    state = async_to_sync(service.start_next_hand)(table_id=table.pk)
    assert state.doc["hand"] is not None
    # The sits were recorded by the service (tests/live/test_table_events.py); these tests call
    # the recording functions themselves.
    TableEvent.objects.filter(table=table).delete()
    return table, ann, bob, state.doc


def listed(table) -> list[tuple]:
    return list(
        TableEvent.objects.filter(table=table)
        .order_by("pk")
        .values_list("kind", "user__username", "amount", "hand_number", "detail")
    )


def test_sitting_adding_chips_sitting_out_and_leaving_are_recorded(hand_in_play):
    table, ann, bob, _ = hand_in_play
    events.record_sat(table_id=table.pk, user_id=ann.pk, position=0, buy_in=500)
    events.record_chips_added(table_id=table.pk, user_id=ann.pk, amount=200)
    events.record_sitting_out(table_id=table.pk, user_id=ann.pk, sitting_out=True)
    events.record_sitting_out(table_id=table.pk, user_id=ann.pk, sitting_out=False)
    events.record_left(table_id=table.pk, user_id=ann.pk, cashed_out=640)
    assert listed(table) == [
        ("sat", "ann", 500, None, {"seat": 0}),
        ("buy_in", "ann", 200, None, {}),
        ("sat_out", "ann", None, None, {}),
        ("back", "ann", None, None, {}),
        ("left", "ann", 640, None, {}),
    ]


def test_an_event_is_written_in_the_callers_transaction(hand_in_play):
    table, ann, _, _ = hand_in_play
    with pytest.raises(RuntimeError), transaction.atomic():
        events.record_left(table_id=table.pk, user_id=ann.pk, cashed_out=500)
        raise RuntimeError("the cash-out was refused")
    assert listed(table) == []


def test_a_timeout_is_found_between_the_documents_around_the_deadline(hand_in_play):
    table, ann, bob, doc = hand_in_play
    hand = hand_of(doc)
    to_act = doc["hand"]["players"][hand.to_act]
    after = t.apply_timeout(doc, now=time.time())
    assert events.timeouts_between(before=doc, after=after) == [(to_act, False)]
    assert events.timeouts_between(before=after, after=after) == []
    recorded = events.record_timeouts(table_id=table.pk, before=doc, after=after)
    assert [(e.kind, e.user_id, e.hand_number) for e in recorded] == [
        ("timeout", to_act, doc["hand"]["number"])
    ]


def test_the_timeout_that_sits_a_player_out_is_recorded_as_both(hand_in_play):
    table, ann, bob, doc = hand_in_play
    hand = hand_of(doc)
    to_act = doc["hand"]["players"][hand.to_act]
    before = copy_doc(doc)
    seat = next(s for s in before["seats"] if s and s["user_id"] == to_act)
    seat["timeouts"] = t.TIMEOUTS_TO_SIT_OUT - 1  # timed out in an earlier hand already
    after = t.apply_timeout(before, now=time.time())
    events.record_timeouts(table_id=table.pk, before=before, after=after)
    name = ann.username if to_act == ann.pk else bob.username
    number = doc["hand"]["number"]
    assert listed(table) == [
        ("timeout", name, None, number, {}),
        ("sat_out", name, None, number, {"by": "timeouts"}),
    ]


def test_nothing_is_recorded_when_nobody_timed_out(hand_in_play):
    table, _, _, doc = hand_in_play
    assert events.record_timeouts(table_id=table.pk, before=doc, after=doc) == []
    assert listed(table) == []


def test_a_time_bank_drawn_is_recorded_with_its_seconds_and_the_timeout_after_it_too(hand_in_play):
    table, ann, bob, doc = hand_in_play
    hand = hand_of(doc)
    to_act = doc["hand"]["players"][hand.to_act]
    name = ann.username if to_act == ann.pk else bob.username
    before = copy_doc(doc)
    before["table"]["time_bank"] = 30
    drawn = t.apply_timeout(before, now=time.time())  # the bank gives the turn 30 s more
    assert events.time_banks_drawn(before=before, after=drawn) == [(to_act, 30)]
    events.record_timeouts(table_id=table.pk, before=before, after=drawn)
    timed_out = t.apply_timeout(drawn, now=time.time())  # the bank is spent: the clock acts
    assert events.time_banks_drawn(before=drawn, after=timed_out) == []
    events.record_timeouts(table_id=table.pk, before=drawn, after=timed_out)
    number = doc["hand"]["number"]
    assert listed(table) == [("time_bank", name, 30, number, {}), ("timeout", name, None, number, {})]
