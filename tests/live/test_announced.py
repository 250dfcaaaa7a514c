"""Announcements of new table states, decoded once per process (games/live/announced.py)."""

from __future__ import annotations

import json

import pytest

from games.live import announced
from games.live.store import MemoryStateStore, Versioned


@pytest.fixture(autouse=True)
def _nothing_remembered():
    announced.forget_all()
    yield
    announced.forget_all()


def state(version: int, *, epoch: str = "e1", pot: int = 0) -> Versioned:
    doc = {"epoch": epoch, "pot": pot, "seats": [{"name": "ann"}]}
    return Versioned(version=version, doc=doc, raw=json.dumps(doc))


def test_an_announcement_carries_the_stored_text_not_the_document():
    message = announced.announcement(state(3))

    assert message == {"type": "table.version", "version": 3, "epoch": "e1", "raw": state(3).raw}


def test_a_state_without_its_text_is_announced_with_the_document():
    made_by_hand = Versioned(version=2, doc={"epoch": "e1"})

    message = announced.announcement(made_by_hand)

    assert message["doc"] == {"epoch": "e1"} and "raw" not in message
    assert announced.announced_doc(7, message) == {"epoch": "e1"}


def test_the_sockets_of_a_process_share_one_decoded_document():
    message = announced.announcement(state(4, pot=30))

    first = announced.announced_doc(7, message)
    second = announced.announced_doc(7, message)

    assert first == state(4, pot=30).doc
    assert second is first  # decoded once


def test_the_writing_process_hands_out_what_it_wrote_without_decoding():
    written = state(5, pot=40)
    announced.remember(7, written)

    assert announced.announced_doc(7, announced.announcement(written)) is written.doc


def test_a_late_announcement_is_decoded_but_does_not_replace_a_newer_state():
    newer, older = state(6, pot=60), state(5, pot=50)
    announced.remember(7, newer)

    assert announced.announced_doc(7, announced.announcement(older)) == older.doc
    assert announced.announced_doc(7, announced.announcement(newer)) is newer.doc


def test_a_rebuilt_table_whose_versions_start_again_is_not_confused_with_the_old_one():
    before_loss, rebuilt = state(9, epoch="old", pot=90), state(1, epoch="new", pot=10)
    announced.announced_doc(7, announced.announcement(before_loss))

    assert announced.announced_doc(7, announced.announcement(rebuilt)) == rebuilt.doc
    again = announced.announced_doc(7, announced.announcement(state(1, epoch="new", pot=10)))
    assert again == rebuilt.doc
    # The same version number of the other epoch is another state: decoded, not taken from memory.
    assert announced.announced_doc(7, announced.announcement(state(1, epoch="old", pot=11)))["pot"] == 11


def test_tables_do_not_share_documents_and_the_oldest_is_forgotten(monkeypatch):
    monkeypatch.setattr(announced, "KEPT", 2)
    for table_id in (1, 2, 3):
        announced.remember(table_id, state(1, pot=table_id))

    assert set(announced._latest) == {2, 3}
    assert announced.announced_doc(2, announced.announcement(state(1, pot=2)))["pot"] == 2


async def test_what_the_store_writes_is_announced_as_the_store_holds_it():
    store = MemoryStateStore()
    written = await store.create("7", {"epoch": "e1", "cards": ("As", "Kd"), "by_seat": {1: "ann"}})

    doc = announced.announced_doc(7, announced.announcement(written))

    assert doc == written.doc == (await store.get("7")).doc
    assert doc == {"epoch": "e1", "cards": ["As", "Kd"], "by_seat": {"1": "ann"}}


async def test_a_redis_state_announced_by_another_process_becomes_this_stores_recent_one(
    settings, redis_url: str
) -> None:
    from games.live.store import Deadline, RedisStateStore, get_state_store

    settings.REDIS_URL = redis_url
    store = get_state_store()
    assert isinstance(store, RedisStateStore)
    other = RedisStateStore.from_url(redis_url, prefix=store.prefix)  # another process's
    try:
        written = await other.create("7", {"epoch": "e1", "pot": 5}, deadline=Deadline(at=4e9))
        message = announced.announcement(written)
        assert message["incarnation"] == written.incarnation != ""
        assert message["deadline"] == [4e9, 1]

        assert announced.announced_doc(7, message) == {"epoch": "e1", "pot": 5}
        assert store.recent("7") == written and store.recent("7").incarnation == written.incarnation
    finally:
        await other.delete("7")
        await other.aclose()
