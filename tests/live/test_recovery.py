"""A store that loses tables (Redis flushed or restarted) and tables that keep failing: the room
carries on without a client's help, and a seed is never shown while a deck made from it is dealt."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import sync_to_async

from games.live import records, runtime, service
from games.live.store import get_state_store
from games.models import PlayedHand
from tests.live.tablekit import connect
from tests.live.test_service_hands import seated_table

pytestmark = pytest.mark.django_db(transaction=True)


async def _flush(table_id: int) -> None:
    """What FLUSHDB does to one table (other tests share the Redis database)."""
    assert await get_state_store().delete(str(table_id))


def _hand(table_id: int, number: int) -> PlayedHand:
    return PlayedHand.objects.get(table_id=table_id, number=number)


async def test_a_hand_numbered_before_the_store_lost_the_table_is_never_dealt(backend) -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"])
    state = await service.load_table_state(table.pk)
    lineup = records.Lineup.of_doc(state.doc)
    number, started, seed = await service.in_db(records.begin_hand_record)(table_id=table.pk, lineup=lineup)
    await _flush(table.pk)  # between numbering the hand and dealing it

    after = await service.deal_numbered_hand(
        table_id=table.pk,
        number=number,
        started_at=started.isoformat(),
        seed=seed,
        lineup=lineup,
        epoch=state.doc["epoch"],
    )

    assert after.doc["epoch"] != state.doc["epoch"]  # the table was rebuilt
    assert after.doc["hand"] is None  # and the hand the rebuild cancelled was not dealt
    record = await sync_to_async(_hand)(table.pk, number)
    assert record.status == PlayedHand.Status.CANCELLED
    # The next hand gets a number of its own, from the same seed series: the cancelled hand did
    # not reveal the seed, which stays secret until the series ends.
    dealt = await service.start_next_hand(table_id=table.pk)
    assert dealt.doc["hand"]["number"] == number + 1
    assert dealt.doc["hand"]["server_seed"] == seed
    sealed = await sync_to_async(
        lambda: not PlayedHand.objects.select_related("series").get(pk=record.pk).revealed
    )()
    assert sealed


async def test_a_rebuild_cancels_only_the_hands_numbered_before_it(backend) -> None:
    table, _players = await seated_table(["ann", "bob"])
    dealt = await service.start_next_hand(table_id=table.pk)
    number = dealt.doc["hand"]["number"]
    await _flush(table.pk)
    # A second process deals the next hand into its rebuilt table before this one's rebuild ends.
    rebuilt = await service.load_table_state(table.pk)
    newer = await service.start_next_hand(table_id=table.pk)
    assert newer.doc["hand"]["number"] == number + 1
    # That hand is not cancelled by any rebuild that read the table before it was numbered.
    assert (
        await service.in_db(records.cancel_open_hands)(
            table_id=table.pk, reason="late rebuild", numbered_up_to=number
        )
        == []
    )
    assert (await sync_to_async(_hand)(table.pk, number + 1)).status == PlayedHand.Status.IN_PLAY
    assert rebuilt.doc["notice"] is not None  # the players were told their hand was cancelled


async def test_after_a_flush_the_sweep_brings_back_a_table_in_play_and_its_pages_resync(backend) -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"])
    a = await connect(ann, table.pk)
    dealt = await service.start_next_hand(table_id=table.pk)
    await a.until(lambda f: "Hand 1 begins" in f)
    _, old_epoch = a.version
    await _flush(table.pk)

    await runtime.sweep_overdue()  # the worker's or any serving process's, every few seconds

    state = await get_state_store().get(str(table.pk))
    assert state is not None and state.doc["epoch"] != old_epoch
    assert state.doc["timer"]["kind"] == "start"  # its next hand is due again
    cancelled = await sync_to_async(_hand)(table.pk, dealt.doc["hand"]["number"])
    assert cancelled.status == PlayedHand.Status.CANCELLED
    # The page that watched the table got the rebuilt one without asking.
    await a.until(lambda f: f'data-epoch="{state.doc["epoch"]}"' in f)
    assert "cancelled" in a.last
    await a.comm.disconnect()


async def test_a_table_nobody_plays_at_is_not_brought_back(backend) -> None:
    table, (ann,) = await seated_table(["ann"])
    await _flush(table.pk)
    assert await runtime.recover_lost_tables(held=set(), now=0) == []
    assert await get_state_store().get(str(table.pk)) is None


async def test_a_table_that_keeps_failing_is_retried_with_backoff_and_holds_up_no_other(caplog) -> None:
    broken, _ = await seated_table(["ann", "bob"])
    good, _ = await seated_table(["cem", "dan"])
    store = get_state_store()
    for table in (broken, good):
        await service.load_table_state(table.pk)
    # A document of a table's shape that its functions still cannot work with (a seat missing
    # its flags, as a bug would leave it: one of the wrong shape is quarantined and rebuilt,
    # tests/live/test_bad_records.py), with its start deadline long overdue; the good table's
    # start is overdue too.
    state = await store.get(str(broken.pk))
    bad = {**state.doc, "seats": [{"user_id": 1, "chips": 500}, {"user_id": 2, "chips": 500}]}
    await store.compare_and_set(
        str(broken.pk), expected_version=state.version, doc=bad, deadline=state.deadline
    )
    runtime._failing.clear()
    caplog.set_level(logging.ERROR, logger="games.live.service")
    later = state.deadline.at + 60

    assert await runtime.sweep_overdue(now=later) == 1  # the good table's hand was dealt
    assert (await store.get(str(good.pk))).doc["hand"] is not None
    assert f"table {broken.pk}: its deadline failed (1 in a row)" in caplog.text
    # Not retried on the next sweep, but once its backoff has passed.
    caplog.clear()
    await runtime.sweep_overdue(now=later + 1)
    assert "its deadline failed" not in caplog.text
    await runtime.sweep_overdue(now=later + runtime.RETRY_FIRST + 1)
    assert "(2 in a row)" in caplog.text
    runtime._failing.clear()
