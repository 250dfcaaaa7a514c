"""A seed series is never revealed while one of its hands is in play (issue 30, finding 5), however
a deal and a reveal interleave: a deal that takes the series just before its day ends and commits
just after must be seen by the reveal. Played here in that order with two database connections:
the deal is held inside its transaction (after it numbered its hand, before it commits) while a
reveal is asked for.

On PostgreSQL both take the series' row FOR UPDATE, so the reveal waits for the deal's commit and
then sees its hand. SQLite has no row locks; there the transactions are IMMEDIATE (settings.py):
the deal holds the database's write lock, and the reveal's transaction waits for it, or fails
with "locked" instead of revealing."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.db import OperationalError, close_old_connections, connection
from django.utils import timezone

from games.live import records, series
from games.models import PlayedHand, SeedSeries
from tests.live.test_records_queries import seated

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(fn, results: dict, name: str) -> threading.Thread:
    def run() -> None:
        try:
            results[name] = fn()
        except Exception as exc:
            results[name] = exc
        finally:
            close_old_connections()
            connection.close()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread


def deal_and_reveal_racing() -> dict:
    """A deal takes the series seconds before its day ends and is held before its commit; a reveal
    is asked for just after the day. What each returned, and what the database says after both."""
    table, doc = seated(2)
    records.begin_hand_record(table_id=table.pk)  # opens the series
    PlayedHand.objects.filter(table=table).update(status=PlayedHand.Status.FINISHED)
    started = timezone.now() - timedelta(hours=series.SERIES_HOURS) + timedelta(seconds=30)
    SeedSeries.objects.filter(table=table).update(started_at=started)
    running = SeedSeries.objects.get(table=table)

    numbered, go = threading.Event(), threading.Event()
    real_rows = records._player_rows

    def rows_then_hold(**kwargs):
        rows = real_rows(**kwargs)
        numbered.set()  # the hand is numbered and recorded in play, not yet committed
        assert go.wait(10)
        return rows

    records._player_rows = rows_then_hold
    results: dict = {}
    try:
        deal = in_thread(
            lambda: records.begin_hand_record(table_id=table.pk, lineup=records.Lineup.of_doc(doc)),
            results,
            "deal",
        )
        assert numbered.wait(10)
        after_its_day = started + timedelta(hours=series.SERIES_HOURS, seconds=1)
        reveal = in_thread(lambda: series.reveal_if_expired(running, now=after_its_day), results, "reveal")
        reveal.join(1.0)  # it must wait for the deal (or fail), not reveal meanwhile
        go.set()
        deal.join(10)
        reveal.join(30)
    finally:
        records._player_rows = real_rows
    assert not isinstance(results["deal"], Exception), results["deal"]
    number, _, seed = results["deal"]
    hand = PlayedHand.objects.get(table=table, number=number)
    return {
        "reveal": results["reveal"],
        "took_the_running_series": seed == running.server_seed and hand.series_id == running.pk,
        "hand_in_play": hand.status == PlayedHand.Status.IN_PLAY,
        "revealed": SeedSeries.objects.get(pk=running.pk).revealed,
    }


def test_a_reveal_waits_for_a_deal_that_took_the_series_just_before_its_day_ended():
    race = deal_and_reveal_racing()
    assert race["took_the_running_series"] and race["hand_in_play"]
    assert not race["revealed"], "the series was revealed while a hand of it is in play"
    if connection.vendor == "postgresql":
        assert race["reveal"] is False  # it waited, then saw the hand
    else:  # the test database is SQLite in memory, shared cache: a lock there fails at once
        assert race["reveal"] is False or isinstance(race["reveal"], OperationalError)


RACE_ON_A_SQLITE_FILE = """
import django, json
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from tests.live.test_series_race import deal_and_reveal_racing
race = deal_and_reveal_racing()
print(json.dumps({**race, "reveal": repr(race["reveal"])}))
"""


def test_on_a_sqlite_file_the_reveal_waits_for_the_deal_too(tmp_path):
    """The room's SQLite (one machine, ``make run``): a database file, IMMEDIATE transactions with
    a busy timeout, where the reveal's transaction waits for the deal's write lock."""
    from tests.svara_site.envkit import clean_env, run_python

    env = clean_env(tmp_path, DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    done = run_python(RACE_ON_A_SQLITE_FILE, env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    race = json.loads(done.stdout.strip().splitlines()[-1])
    assert race["took_the_running_series"] and race["hand_in_play"]
    assert not race["revealed"], "the series was revealed while a hand of it is in play"
    assert race["reveal"] == "False"  # it waited for the deal's commit, then saw the hand


def test_a_deal_after_a_reveal_opens_a_new_series():
    table, doc = seated(2)
    records.begin_hand_record(table_id=table.pk)
    PlayedHand.objects.filter(table=table).update(status=PlayedHand.Status.FINISHED)
    started = timezone.now() - timedelta(hours=series.SERIES_HOURS) + timedelta(seconds=30)
    SeedSeries.objects.filter(table=table).update(started_at=started)
    running = SeedSeries.objects.get(table=table)

    assert series.reveal_if_expired(running, now=started + timedelta(hours=series.SERIES_HOURS)) is True
    _, _, seed = records.begin_hand_record(table_id=table.pk, lineup=records.Lineup.of_doc(doc))
    assert seed != running.server_seed
    assert SeedSeries.objects.filter(table=table, revealed_at__isnull=True).count() == 1
