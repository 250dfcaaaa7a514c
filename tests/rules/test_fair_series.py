"""The fair page and the downloads for hands of a seed series: sealed while it runs (the hash and
when it becomes checkable, never the seed or a deck), checked whole once revealed, and a clear
answer, never a 500, for a table or series that does not exist."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from games.engine.fairness import seed_hash
from games.models import PlayedHand, SeedSeries, Table
from tests.history.test_service import (
    FOLD_AND_SHOWDOWN,
    FOLD_AND_SHOWDOWN_CARDS,
    SEED,
    make_user,
    stored_hand,
)
from tests.live.framecheck import label, labels_in
from tests.staff_roles import staff_with

pytestmark = pytest.mark.django_db
FOLDED = FOLD_AND_SHOWDOWN_CARDS[0]["cem"].split()  # cem folds; ann and bob go to the showdown


def in_series(hand: PlayedHand, *, revealed: bool, number: int = 1) -> SeedSeries:
    series = SeedSeries.objects.create(
        table=hand.table,
        number=number,
        server_seed=SEED,
        server_seed_hash=seed_hash(SEED),
        started_at=datetime.now(UTC) - timedelta(hours=1),
        revealed_at=datetime.now(UTC) if revealed else None,
        end_reason="left" if revealed else "",
    )
    PlayedHand.objects.filter(pk=hand.pk).update(series=series)
    return series


@pytest.fixture
def sealed():
    people = {name: make_user(name) for name in ("ann", "bob", "cem")}
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=people)
    in_series(hand, revealed=False)
    return hand, people


def client_of(user=None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_login(user)
    return client


def no_folded_cards_and_no_seed(text: str) -> None:
    assert not labels_in(text) & {label(c) for c in FOLDED}
    assert SEED not in text and not any(f'"{c}"' in text for c in FOLDED)


def test_a_hand_of_a_running_series_shows_its_hash_and_when_it_becomes_checkable(sealed):
    hand, people = sealed
    for client in (client_of(), client_of(people["ann"]), client_of(make_user("eve"))):
        page = client.get("/fair/", {"hand": f"{hand.table_id}-{hand.number}"}).content.decode()
        assert 'data-hand-check="sealed"' in page and hand.server_seed_hash in page
        assert "once the series ends" in page
        no_folded_cards_and_no_seed(page)
        series = client.get("/fair/", {"table": hand.table_id, "series": 1}).content.decode()
        assert 'data-series-check="sealed"' in series and "at the latest from" in series
        no_folded_cards_and_no_seed(series)
        listing = client.get("/fair/", {"table": hand.table_id}).content.decode()
        assert "running: sealed" in listing
        download = client.get(f"/fair/series/{hand.table_id}-1.json")
        assert download.status_code == 403 and "still running" in download.content.decode()


def test_its_players_replay_it_as_they_saw_it_and_get_no_file_until_the_series_ends(sealed):
    hand, people = sealed
    for name in ("ann", "bob"):
        client = client_of(people[name])
        for step in range(12):
            page = client.get(f"/hands/{hand.pk}/", {"step": step}).content.decode()
            no_folded_cards_and_no_seed(page)
        assert "still running" in page and "Download the hand file" not in page
        by = (SeedSeries.objects.get().started_at + timedelta(hours=24)).strftime("%Y-%m-%d %H:%M")
        assert f"at the latest from {by} (UTC)" in page
        answer = client.get(f"/hands/{hand.pk}/hand.json")
        assert answer.status_code == 403 and "seed series ends" in answer.content.decode()
        no_folded_cards_and_no_seed(answer.content.decode())
    SeedSeries.objects.update(revealed_at=datetime.now(UTC), end_reason="left")
    client = client_of(people["ann"])
    assert client.get(f"/hands/{hand.pk}/hand.json").status_code == 200
    assert SEED in client.get(f"/hands/{hand.pk}/").content.decode()


def test_a_series_a_day_old_is_revealed_when_the_fair_page_asks(sealed):
    hand, _people = sealed
    SeedSeries.objects.update(started_at=datetime.now(UTC) - timedelta(hours=25))
    page = client_of().get("/fair/", {"hand": f"{hand.table_id}-{hand.number}"}).content.decode()
    assert 'data-hand-check="checked' in page and SEED in page
    assert SeedSeries.objects.get().end_reason == SeedSeries.EndReason.EXPIRED


def test_a_revealed_series_whose_stored_hand_was_changed_names_the_hand_and_the_difference(sealed):
    hand, _people = sealed
    SeedSeries.objects.update(revealed_at=datetime.now(UTC), end_reason="left")
    record = dict(hand.record)
    record["result"] = {**record["result"], "pot": record["result"]["pot"] + 10}
    PlayedHand.objects.filter(pk=hand.pk).update(record=record)
    page = client_of().get("/fair/", {"table": hand.table_id, "series": 1}).content.decode()
    assert 'data-series-check="checked-problems"' in page and 'data-ok="no"' in page
    assert f"hand {hand.table_id}-1: its replay gives pot = " in page


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"table": "abc"}, "Enter a whole number."),
        ({"table": "0"}, "greater than or equal to 1"),
        ({"table": "9" * 30}, "less than or equal to"),
        ({"table": "987654"}, "There is no table with that number."),
        ({"table": "TABLE", "series": "7"}, "That table has no seed series with that number."),
        ({"table": "TABLE", "series": "-1"}, "greater than or equal to 1"),
    ],
)
def test_a_table_or_series_that_does_not_exist_gets_a_clear_message(sealed, query, message):
    hand, _people = sealed
    query = {k: (str(hand.table_id) if v == "TABLE" else v) for k, v in query.items()}
    response = client_of().get("/fair/", query)
    assert response.status_code == 200 and message in response.content.decode()
    no_folded_cards_and_no_seed(response.content.decode())


def test_a_missing_series_file_is_404_with_a_reason_and_a_private_tables_series_is_missing_to_outsiders():
    table = Table.objects.create(name="Back room", stake=10, seat_count=2, private=True)
    SeedSeries.objects.create(
        table=table, number=1, server_seed=SEED, server_seed_hash=seed_hash(SEED),
        started_at=datetime.now(UTC), revealed_at=datetime.now(UTC), end_reason="left",
    )  # fmt: skip
    for path in (
        f"/fair/series/{table.pk}-1.json",
        f"/fair/series/{table.pk}-2.json",
        "/fair/series/999999-1.json",
    ):
        answer = client_of().get(path)
        assert answer.status_code == 404 and "There is no seed series" in answer.content.decode()
        assert SEED not in answer.content.decode()
    page = client_of(make_user("eve")).get("/fair/", {"table": table.pk, "series": 1}).content.decode()
    assert "There is no table with that number." in page and SEED not in page
    # The staff flag alone opens nothing (issue 37); view rights on hands do.
    nobody = client_of(make_user("nox", is_staff=True))
    assert nobody.get(f"/fair/series/{table.pk}-1.json").status_code == 404
    page = nobody.get("/fair/", {"table": table.pk, "series": 1}).content.decode()
    assert "There is no table with that number." in page and SEED not in page
    staff = client_of(staff_with())
    assert staff.get(f"/fair/series/{table.pk}-1.json").status_code == 200
