"""A hand ended by leaves before any deal (RULES.md §5) is stored with ``"decks": []`` and its
``leave`` moves (HAND_FORMAT.md); its file replays, verifies, and the fair page says what it
proves: its seed against the hash, and its place in the table's chain, with no deck to check.

Played through the site's services on a real table: a hand that is dealt and played out, then a
hand whose dark round ends because everyone else left, then the last player leaves and the
series is revealed."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from games.engine.__main__ import main as engine_main
from games.engine.handfile import replay
from games.engine.verify import check_file, check_hand
from games.live import service
from games.live.document import hand_of
from games.models import PlayedHand, SeedSeries
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def state(table):
    return async_to_sync(service.load_table_state)(table.pk)


def act(table, user, verb) -> None:
    current = state(table)
    async_to_sync(service.table_act)(
        user=user,
        table_id=table.pk,
        verb=verb,
        amount=None,
        client_version=current.version,
        action_id=f"{user.pk}-{current.version}-{verb}",
    )


def play_out_by_folds(table, users) -> None:
    """Deal a hand and let everyone to act decline or fold until one is left."""
    by_user = {u.pk: u for u in users}
    number = async_to_sync(service.start_next_hand)(table_id=table.pk).doc["hand"]["number"]
    while (current := state(table)).doc["hand"] and current.doc["hand"]["number"] == number:
        hand = hand_of(current.doc)
        assert hand is not None
        verbs = hand.legal().verbs
        act(
            table,
            by_user[current.doc["hand"]["players"][hand.to_act]],
            "decline" if "decline" in verbs else "fold",
        )


@pytest.fixture
def table_after_leaves():
    """Three players: hand 1 dealt and folded out, hand 2 ended in the dark round by two leaves;
    then the last one leaves and the series is revealed."""
    users = [make_player(n) for n in ("ann", "bob", "cem")]
    table = make_table(seat_count=3, dark_play=True)
    for position, user in enumerate(users):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=500)
    play_out_by_folds(table, users)
    dealt = async_to_sync(service.start_next_hand)(table_id=table.pk)
    assert hand_of(dealt.doc).phase == "dark"
    stayer = next(u for u in users if u.pk == dealt.doc["hand"]["players"][hand_of(dealt.doc).to_act])
    for leaver in [u for u in users if u is not stayer]:
        async_to_sync(service.table_leave)(user=leaver, table_id=table.pk)
    assert state(table).doc["hand"] is None  # ended and settled: the one left won the antes
    async_to_sync(service.table_leave)(user=stayer, table_id=table.pk)
    series = SeedSeries.objects.get(table=table)
    assert series.revealed
    hands = list(PlayedHand.objects.filter(table=table, status=PlayedHand.Status.FINISHED).order_by("number"))
    assert len(hands) == 2
    return table, series, hands, stayer


def test_the_stored_file_has_no_deck_and_its_leaves_and_replays_to_its_result(table_after_leaves):
    _table, _series, (_first, second), stayer = table_after_leaves
    record = second.record
    assert record["decks"] == []
    assert [a[1] for a in record["actions"]].count("leave") == 2
    assert record["result"]["winner"] == stayer.username and record["result"]["finished"]
    assert replay(record) == record["result"]
    assert check_hand(record) == []


def test_the_engine_command_line_replays_and_verifies_it(table_after_leaves, tmp_path, capsys):
    _table, series, (first, second), _stayer = table_after_leaves
    hand_path = tmp_path / "hand.json"
    hand_path.write_text(json.dumps(second.record))
    assert engine_main(["replay", str(hand_path)]) == 0
    assert json.loads(capsys.readouterr().out) == second.record["result"]
    assert engine_main(["verify", str(hand_path), "--head", second.chain_hash]) == 0
    assert capsys.readouterr().out.endswith("everything checks out\n")
    series_file = Client().get(f"/fair/series/{series.table_id}-{series.number}.json").content
    series_path = tmp_path / "series.json"
    series_path.write_bytes(series_file)
    assert check_file(json.loads(series_file)) == (f"series 1 at table {series.table_id}", [])
    assert engine_main(["verify", str(series_path)]) == 0
    assert capsys.readouterr().out.endswith("everything checks out\n")


def test_the_fair_page_says_what_the_hand_proves_and_the_series_checks_out(table_after_leaves):
    table, series, (first, second), _stayer = table_after_leaves
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = client.get("/fair/", {"hand": f"{table.pk}-{second.number}"}).content.decode()
    assert 'data-hand-check="no_deal-ok"' in page
    assert "ended before any card was dealt" in page
    assert second.server_seed_hash in page and series.server_seed in page
    # Its place in the table's chain: the hand before it, and its own link hash.
    assert first.chain_hash in page and second.chain_hash in page
    assert "does NOT check out" not in page
    whole = client.get("/fair/", {"table": table.pk, "series": series.number}).content.decode()
    assert 'data-series-check="checked-ok"' in whole and "does NOT check out" not in whole
    assert f'data-hand="{second.number}" data-ok="yes"' in whole


def test_its_player_replays_it_and_downloads_its_file(table_after_leaves):
    _table, _series, (_first, second), stayer = table_after_leaves
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(stayer)
    for step in range(4):
        assert client.get(f"/hands/{second.pk}/", {"step": step}).status_code == 200
    download = client.get(f"/hands/{second.pk}/hand.json")
    assert download.status_code == 200 and replay(json.loads(download.content)) == second.record["result"]
