"""Seed series at the database: one seed for a run of a table's hands, revealed when the last
player leaves, staff close the table or a day has passed; and the hash chain settled hands carry."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync

from games.engine.chain import GENESIS, link_hash
from games.engine.fairness import seed_hash
from games.live import records, series, staff
from games.live import transitions as t
from games.live.document import new_table_doc
from games.models import PlayedHand, SeedSeries
from tests.live.tablekit import make_player, make_table
from tests.live.test_records_queries import begin, fold_out, seated

pytestmark = pytest.mark.django_db


def test_a_series_runs_for_24_hours_from_its_first_hand():
    start = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)
    assert not series.series_expired(started_at=start, now=start + timedelta(hours=23, minutes=59))
    assert series.series_expired(started_at=start, now=start + timedelta(hours=24))


def test_the_hands_of_a_table_deal_from_one_seed_until_the_series_ends():
    table, doc = seated(2)
    other, _ = seated(0)
    seeds = [records.begin_hand_record(table_id=table.pk)[2] for _ in range(3)]
    assert len(set(seeds)) == 1
    assert records.begin_hand_record(table_id=other.pk)[2] != seeds[0]  # each table its own
    only = SeedSeries.objects.get(table=table)
    assert only.number == 1 and not only.revealed and only.server_seed_hash == seed_hash(seeds[0])
    assert set(PlayedHand.objects.filter(table=table).values_list("series_id", flat=True)) == {only.pk}
    assert not PlayedHand.objects.filter(table=table).first().revealed


def test_a_day_after_its_first_hand_the_next_hand_reveals_it_and_opens_a_new_series():
    table, _ = seated(2)
    first = records.begin_hand_record(table_id=table.pk)[2]
    PlayedHand.objects.filter(table=table).update(status=PlayedHand.Status.CANCELLED)
    SeedSeries.objects.filter(table=table).update(started_at=datetime.now(UTC) - timedelta(hours=25))
    second = records.begin_hand_record(table_id=table.pk)[2]
    old, new = SeedSeries.objects.filter(table=table).order_by("number")
    assert second != first and new.number == 2 and not new.revealed
    assert old.revealed and old.end_reason == SeedSeries.EndReason.EXPIRED


def test_a_series_past_its_day_is_revealed_when_asked_about_unless_a_hand_of_it_is_in_play():
    table, _ = seated(2)
    records.begin_hand_record(table_id=table.pk)
    SeedSeries.objects.filter(table=table).update(started_at=datetime.now(UTC) - timedelta(hours=25))
    running = SeedSeries.objects.get(table=table)
    assert series.reveal_if_expired(running) is False  # its hand is still in play
    PlayedHand.objects.filter(table=table).update(status=PlayedHand.Status.FINISHED)
    assert series.reveal_if_expired(running) is True
    assert SeedSeries.objects.get(table=table).revealed
    fresh, _ = seated(0)
    records.begin_hand_record(table_id=fresh.pk)
    assert series.reveal_if_expired(SeedSeries.objects.get(table=fresh)) is False  # not yet a day


def test_the_last_player_leaving_reveals_the_series_and_not_before():
    table, _ = seated(2)
    records.begin_hand_record(table_id=table.pk)
    PlayedHand.objects.filter(table=table).update(status=PlayedHand.Status.FINISHED)
    first, second = list(table.seat_rows.order_by("position").values_list("user_id", flat=True))
    records.leave_seat(user_id=first, table_id=table.pk, key="leave-1")
    assert not SeedSeries.objects.get(table=table).revealed
    records.leave_seat(user_id=second, table_id=table.pk, key="leave-2")
    ended = SeedSeries.objects.get(table=table)
    assert ended.revealed and ended.end_reason == SeedSeries.EndReason.LEFT
    assert PlayedHand.objects.select_related("series").get(table=table).revealed
    assert series.open_series(table_id=table.pk) is None


@pytest.mark.django_db(transaction=True)
def test_staff_closing_the_table_reveals_its_series():
    table, _ = seated(2)
    boss = make_player("boss")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    records.begin_hand_record(table_id=table.pk)
    async_to_sync(staff.table_close)(table_id=table.pk, staff_user=boss, reason="closing time")
    ended = SeedSeries.objects.get(table=table)
    assert ended.revealed and ended.end_reason == SeedSeries.EndReason.CLOSED
    assert PlayedHand.objects.get(table=table).status == PlayedHand.Status.CANCELLED


def test_a_practice_table_closed_reveals_its_series():
    table = make_table(kind="practice")
    records.begin_hand_record(table_id=table.pk)
    records.close_own_table(table_id=table.pk)
    assert SeedSeries.objects.get(table=table).end_reason == SeedSeries.EndReason.CLOSED


def test_settled_hands_are_linked_into_the_tables_chain_from_genesis():
    table, doc = seated(2)
    links = []
    for _ in range(3):
        doc, _lineup = begin(table.pk, doc)
        doc = fold_out(doc)
        records.settle_hand(table_id=table.pk, ended=doc["ended"])
        doc = t.mark_settled(doc, now=time.time(), left=[])
        links.append(PlayedHand.objects.get(table=table, number=doc["last"]["number"]))
    assert [h.prev_hash for h in links] == [GENESIS, links[0].chain_hash, links[1].chain_hash]
    for hand in links:
        # The record read back from the database hashes to the stored link (a jsonb round trip too).
        assert hand.record["prev_hash"] == hand.prev_hash and link_hash(hand.record) == hand.chain_hash
        assert hand.record["series"] == 1
    assert records.chain_head(table.pk) == links[-1].chain_hash
    assert records.chain_head(make_table(name="empty").pk) == ""


def test_a_hand_stored_before_series_is_revealed_as_it_was_and_starts_no_chain():
    table, doc = seated(2)
    PlayedHand.objects.create(
        table=table, number=99, status=PlayedHand.Status.FINISHED, started_at=datetime.now(UTC),
        server_seed="ab" * 32, server_seed_hash=seed_hash("ab" * 32),
    )  # fmt: skip
    assert PlayedHand.objects.get(number=99).revealed
    doc, _lineup = begin(table.pk, new_table_doc(table=records.table_settings(table), seats=doc["seats"]))
    records.settle_hand(table_id=table.pk, ended=fold_out(doc)["ended"])
    assert PlayedHand.objects.get(table=table, number=1).prev_hash == GENESIS
