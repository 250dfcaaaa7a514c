"""Chips added just as a hand starts (issue 30, finding 3): the add checked "between hands?" on
the table as it was, the hand was dealt while the ledger moved the chips, and the settlement then
wrote the hand's end stacks over the seat, losing the add on the table but not in the ledger.
Played here in that order, deterministically: the hand is dealt after the add's check and ledger
move, before its table write."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.services import seat_balance
from games.live import service
from tests.live.test_service_hands import act, seated_table, to_act

pytestmark = pytest.mark.django_db(transaction=True)


async def seat_chips_and_ledger(table, users) -> list[tuple[int, int]]:
    state = await service.load_table_state(table.pk)
    chips = {s["user_id"]: s["chips"] for s in state.doc["seats"] if s}
    return [(chips[u.pk], await sync_to_async(seat_balance)(user=u, table_id=table.pk)) for u in users]


def before_the_first_table_write(monkeypatch, step) -> None:
    """Run ``step`` when the next command has done its database work and is about to write the
    table: between the add's "between hands?" check (and its ledger move) and its table write."""
    real_update = service.update_table
    done: list[bool] = []

    async def update_after_step(*args, **kwargs):
        if not done:
            done.append(True)
            await step()
        return await real_update(*args, **kwargs)

    monkeypatch.setattr(service, "update_table", update_after_step)


async def test_chips_added_as_a_hand_is_dealt_reach_the_table_after_it(backend, monkeypatch):
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    before_the_first_table_write(monkeypatch, lambda: service.start_next_hand(table_id=table.pk))

    await service.table_add_chips(user=ann, table_id=table.pk, amount=300)

    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is not None  # the hand was dealt with the stacks as they were
    assert state.doc["seats"][0]["chips"] == 500  # the add is not part of this hand
    users = {ann.pk: ann, bob.pk: bob}
    await act(table, users[await to_act(table)], "fold")  # ends and settles the hand

    after = await seat_chips_and_ledger(table, [ann, bob])
    assert all(table_chips == ledger for table_chips, ledger in after), after
    assert sum(ledger for _, ledger in after) == 1300


async def test_two_adds_racing_each_other_both_reach_the_table(backend, monkeypatch):
    table, (ann, _bob) = await seated_table(["ann", "bob"], dark_play=False)
    # The second add passes its check and lands on the table before the first.
    before_the_first_table_write(
        monkeypatch, lambda: service.table_add_chips(user=ann, table_id=table.pk, amount=50)
    )

    await service.table_add_chips(user=ann, table_id=table.pk, amount=100)

    assert await seat_chips_and_ledger(table, [ann]) == [(650, 650)]


def test_chips_added_during_a_hand_join_the_stack_when_it_is_cancelled():
    from games.live import transitions as t
    from games.live.document import new_table_doc, seat_entry

    table = {"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": False}
    table |= {"turn_seconds": 30, "status": "open", "private": False, "kind": "cash"}
    seats = [seat_entry(user_id=1, name="ann", chips=500), seat_entry(user_id=2, name="bob", chips=500)]
    doc = new_table_doc(table=table, seats=seats)
    doc = t.start_hand(doc, number=1, now=0.0, started_at="2026-12-07T18:00:00+00:00")
    doc = t.add_chips(doc, user_id=1, amount=200, now=1.0)
    assert (doc["seats"][0]["chips"], doc["seats"][0]["added"]) == (500, 200)

    doc = t.cancel_hand(doc, notice="staff", now=2.0)
    assert doc["seats"][0]["chips"] == 700 and "added" not in doc["seats"][0]
