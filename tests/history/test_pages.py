"""Hand history pages: "My hands", the replay page step by step, the hand file download.

The replay page must never show a card the viewer could not see during the hand: for stored hands
with stacked decks, every step is fetched for every player and searched for the other players'
card labels ("ace of hearts") and card text ("AH").
"""

from __future__ import annotations

import copy
import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.utils import timezone, translation

from games.engine.cards import parse_card
from games.engine.handfile import replay
from games.live import service, testing
from games.models import PlayedHand, SeedSeries, Table
from games.tables.ui.cards import card_name
from tests.history.test_service import (
    FOLD_AND_SHOWDOWN,
    SCENARIOS,
    SEED,
    SVARA,
    T0,
    all_cards,
    deck,
    make_user,
    required_cards,
    stored_hand,
    visible_cards,
)
from tests.live.tablekit import make_player, make_table
from tests.staff_roles import staff_with


def label(code: str) -> str:
    with translation.override("en"):
        return card_name(parse_card(code))


def shows_code(html: str, code: str) -> bool:
    # Card text as a whole word: "AH" inside a CSRF token or "10H" inside "110H" does not count.
    return re.search(rf"(?<![0-9A-Za-z]){code}(?![0-9A-Za-z])", html) is not None


def shows_card(html: str, code: str) -> bool:
    return f'aria-label="{label(code)}"' in html or shows_code(html, code)


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def step_html(client: Client, hand: PlayedHand, step: int, *, htmx: bool = False) -> str:
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.get(f"/hands/{hand.pk}/", {"step": step}, **headers)
    assert response.status_code == 200
    return response.content.decode()


def last_step(html: str) -> int:
    match = re.search(r'data-last-step="(\d+)"', html)
    assert match, html[:500]
    return int(match.group(1))


@pytest.fixture
def players(db):
    return {name: make_user(name) for name in ("ann", "bob", "cem")}


# ---------------------------------------------------------------- the replay never leaks


@pytest.mark.django_db
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("htmx", [False, True])
def test_the_replay_shows_each_player_only_what_they_saw(players, scenario, htmx):
    hand = stored_hand(hand_file=SCENARIOS[scenario][0], users=players)
    everything = all_cards(scenario)
    for name, user in players.items():
        client = logged_in(user)
        last = last_step(step_html(client, hand, 0))
        assert last == len(replay_actions(scenario))
        for step in range(last + 1):
            html = step_html(client, hand, step, htmx=htmx)
            allowed = visible_cards(scenario=scenario, viewer=name, step=step)
            for code in everything - allowed:
                assert not shows_card(html, code), (name, step, code)
            for code in required_cards(scenario=scenario, viewer=name, step=step):
                assert f'aria-label="{label(code)}"' in html and shows_code(html, code), (name, step, code)


def replay_actions(scenario: str) -> list[int]:
    """The accepted actions of a scenario (refused ones are not steps)."""
    hand_file = SCENARIOS[scenario][0]
    refused = {r["index"] for r in replay(hand_file)["refused"]}
    return [i for i in range(len(hand_file["actions"])) if i not in refused]


@pytest.mark.django_db
def test_folded_cards_never_appear_and_own_cards_appear_from_the_deal(players):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    cem_cards = ["AH", "9S", "JD"]  # cem folds at step 3
    for name in ("ann", "bob"):
        client = logged_in(players[name])
        for step in range(6):
            html = step_html(client, hand, step)
            assert not any(shows_card(html, c) for c in cem_cards), (name, step)
    cem = logged_in(players["cem"])
    assert not any(shows_card(step_html(cem, hand, 1), c) for c in cem_cards)  # dark round: no cards yet
    for step in range(2, 6):
        assert all(shows_card(step_html(cem, hand, step), c) for c in cem_cards)
    html = step_html(cem, hand, 1)
    assert html.count('aria-label="face-down card"') == 0  # nobody holds cards in the dark round
    assert step_html(cem, hand, 2).count('aria-label="face-down card"') == 6  # ann's and bob's


@pytest.mark.django_db
def test_the_page_carries_no_deck_and_no_later_step(players):
    hand = stored_hand(hand_file=SVARA, users=players)
    html = step_html(logged_in(players["bob"]), hand, 1)
    assert "decks" not in html and "data-deck" not in html
    assert "joins the svara" not in html  # a later action
    assert "bob calls" not in html  # the next step's action
    assert "ann raises to 10" in html  # this step's action


@pytest.mark.django_db
def test_the_last_step_shows_the_stored_result(players):
    for hand_file, number in ((FOLD_AND_SHOWDOWN, 1), (SVARA, 2)):
        table = Table.objects.create(name=f"T{number}", stake=10, seat_count=3)
        hand = stored_hand(hand_file=hand_file, users=players, table=table, number=number)
        result = hand.record["result"]
        client = logged_in(players["ann"])
        html = step_html(client, hand, 999)  # clamped to the last step
        assert f'data-pot="{result["pot"]}"' in html
        for name, chips in result["chips"].items():
            assert re.search(rf'data-seat="{name}" data-chips="{chips}"', html), name
        assert f'data-winner="{result["winner"]}"' in html
        assert f"{result['winner']} wins the pot of {result['pot']}" in html


def test_a_high_stakes_replay_writes_chip_counts_grouped(players):
    big = {
        **SVARA,
        "stake": 1000,
        "players": [{**p, "chips": 50_000} for p in SVARA["players"]],
        "actions": [[*a[:2], a[2] * 100] if len(a) == 3 else a for a in SVARA["actions"]],
    }
    hand = stored_hand(hand_file=big, users=players, number=1)
    result = hand.record["result"]
    assert result["pot"] >= 1000
    client = logged_in(players["ann"])
    html = step_html(client, hand, 999)
    assert f'data-pot="{result["pot"]}"' in html  # the data stays plain
    assert f"wins the pot of {result['pot']:,}" in html
    assert f"<strong>{result['chips']['ann']:,}</strong>" in html
    assert "raises to 1,000" in step_html(client, hand, 1)
    mine = client.get("/hands/").content.decode()
    net = result["chips"]["ann"] - 50_000
    assert f'<span class="hh-net">+{net:,}</span>' in mine


@pytest.mark.django_db
def test_step_links_work_without_javascript_and_with_htmx(players):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    client = logged_in(players["ann"])
    page = client.get(f"/hands/{hand.pk}/").content.decode()
    assert "<html" in page and 'data-step="0"' in page
    assert f'href="/hands/{hand.pk}/?step=1"' in page
    assert f'hx-get="/hands/{hand.pk}/?step=1"' in page and 'hx-push-url="true"' in page
    assert 'data-step-nav="prev"' not in page  # nothing before the start
    assert "js/history.js" in page
    fragment = client.get(f"/hands/{hand.pk}/", {"step": 2}, HTTP_HX_REQUEST="true")
    assert "HX-Request" in fragment["Vary"]
    body = fragment.content.decode()
    assert "<html" not in body and body.lstrip().startswith(("<section", "\n<section"))
    assert 'id="replay"' in body and 'data-step="2"' in body
    assert 'data-step-nav="prev"' in body and 'data-step-nav="next"' in body


@pytest.mark.django_db
def test_seeds_and_the_fair_deck_link(players):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    html = logged_in(players["bob"]).get(f"/hands/{hand.pk}/").content.decode()
    assert hand.server_seed_hash in html and SEED in html
    assert f'href="/fair/?hand={hand.table_id}-{hand.number}"' in html
    assert f'href="/hands/{hand.pk}/hand.json"' in html


# ---------------------------------------------------------------- who may see a hand


@pytest.mark.django_db
def test_only_players_see_a_hand_and_staff_as_a_spectator(players):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    outsider = logged_in(make_user("eve"))
    assert outsider.get(f"/hands/{hand.pk}/").status_code == 404
    assert outsider.get(f"/hands/{hand.pk}/", HTTP_HX_REQUEST="true").status_code == 404
    staff = logged_in(staff_with())
    for step in range(5):
        html = step_html(staff, hand, step)
        assert "spectator" in html
        assert not any(shows_card(html, c) for c in all_cards("fold_and_showdown")), step
    html = step_html(staff, hand, 5)
    assert all(shows_card(html, c) for c in ["7C", "8S", "10H", "KD", "QC", "7D"])  # the showdown
    assert not any(shows_card(html, c) for c in ["AH", "9S", "JD"])  # cem folded
    assert Client().get(f"/hands/{hand.pk}/").status_code == 302  # log in first


@pytest.mark.django_db
def test_a_hand_in_play_is_not_shown(players):
    hand = stored_hand(hand_file=SVARA, users=players, status=PlayedHand.Status.IN_PLAY)
    client = logged_in(players["ann"])
    assert client.get(f"/hands/{hand.pk}/").status_code == 404
    assert str(hand.pk) not in re.findall(r'data-hand="(\d+)"', client.get("/hands/").content.decode())


@pytest.mark.django_db
def test_a_cancelled_hand_without_a_deal(players):
    table = Table.objects.create(name="Oak", stake=10, seat_count=3)
    hand = stored_hand(hand_file=SVARA, users=players, table=table, status=PlayedHand.Status.CANCELLED)
    PlayedHand.objects.filter(pk=hand.pk).update(record={})
    response = logged_in(players["ann"]).get(f"/hands/{hand.pk}/")
    assert response.status_code == 200
    assert "no stored deal to replay" in response.content.decode()


@pytest.mark.django_db
def test_a_hand_its_rules_cannot_replay_says_so(players):
    """A record holding a move its rules refuse (here a raise below the smallest) is named on the
    page as a hand that cannot be replayed, not shown as another hand."""
    record = copy.deepcopy(SVARA)
    record["actions"] = [["ann", "raise", 10], ["bob", "raise", 15], *record["actions"][1:]]
    hand = stored_hand(hand_file=SVARA, users=players)
    PlayedHand.objects.filter(pk=hand.pk).update(record={**hand.record, "actions": record["actions"]})
    html = logged_in(players["ann"]).get(f"/hands/{hand.pk}/").content.decode()
    assert "This hand cannot be replayed: action 1 (bob raise 15) is refused by rules version 1" in html
    assert "no stored deal to replay" not in html


# ---------------------------------------------------------------- download


@pytest.mark.django_db
def test_download_gives_the_stored_record_to_players_only(players):
    hand = stored_hand(hand_file=SVARA, users=players)
    response = logged_in(players["cem"]).get(f"/hands/{hand.pk}/hand.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"] == (
        f'attachment; filename="svara-hand-{hand.table_id}-{hand.number}.json"'
    )
    assert json.loads(response.content) == hand.record
    assert replay(json.loads(response.content)) == hand.record["result"]
    assert logged_in(make_user("eve")).get(f"/hands/{hand.pk}/hand.json").status_code == 404
    assert Client().get(f"/hands/{hand.pk}/hand.json").status_code == 302


@pytest.mark.django_db
def test_no_download_for_a_hand_in_play(players):
    hand = stored_hand(hand_file=SVARA, users=players, status=PlayedHand.Status.IN_PLAY)
    for user in (players["ann"], staff_with()):
        assert logged_in(user).get(f"/hands/{hand.pk}/hand.json").status_code == 404


# ---------------------------------------------------------------- my hands


def listed(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-hand="(\d+)"', html)]


@pytest.mark.django_db
def test_my_hands_lists_only_mine_newest_first(players):
    oak = Table.objects.create(name="Oak", stake=10, seat_count=3)
    practice = Table.objects.create(name="Bots", stake=10, seat_count=3, kind="practice")
    first = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players, table=oak, number=1, started_at=T0)
    second = stored_hand(
        hand_file=SVARA, users=players, table=practice, number=1, started_at=T0 + timedelta(hours=1)
    )
    not_mine = stored_hand(
        hand_file=FOLD_AND_SHOWDOWN, users={"ann": make_user("dan")}, table=oak, number=2, started_at=T0
    )
    html = logged_in(players["bob"]).get("/hands/").content.decode()
    assert listed(html) == [second.pk, first.pk]
    assert not_mine.pk not in listed(html)
    assert "Oak" in html and "Bots" in html and "practice" in html
    assert "+60" in html  # bob won the first hand: 500 -> 560
    assert (
        logged_in(players["cem"]).get("/hands/", {"result": "won"}).content.decode().count("data-hand=") == 0
    )
    assert listed(logged_in(players["bob"]).get("/hands/", {"result": "won"}).content.decode()) == [first.pk]
    assert listed(logged_in(players["bob"]).get("/hands/", {"kind": "practice"}).content.decode()) == [
        second.pk
    ]
    assert listed(logged_in(players["bob"]).get("/hands/", {"stake": "50"}).content.decode()) == []
    day = T0.date().isoformat()
    assert (
        len(listed(logged_in(players["bob"]).get("/hands/", {"since": day, "until": day}).content.decode()))
        == 2
    )


@pytest.mark.django_db
def test_my_hands_is_paginated_and_keeps_the_filter(players):
    table = Table.objects.create(name="Oak", stake=10, seat_count=3)
    hands = [
        stored_hand(
            hand_file=FOLD_AND_SHOWDOWN,
            users=players,
            table=table,
            number=n,
            started_at=T0 + timedelta(minutes=n),
        )
        for n in range(1, 26)
    ]
    client = logged_in(players["bob"])
    newest_first = [h.pk for h in reversed(hands)]
    page1 = client.get("/hands/", {"result": "won"}).content.decode()
    assert listed(page1) == newest_first[:20]
    # Pages continue from a hand listed (a deep page costs what the first does).
    assert f'href="?result=won&amp;older_than={newest_first[19]}"' in page1
    assert 'rel="prev"' not in page1
    page2 = client.get("/hands/", {"result": "won", "older_than": str(newest_first[19])}).content.decode()
    assert listed(page2) == newest_first[20:]
    assert 'rel="next"' not in page2
    assert f'href="?result=won&amp;newer_than={newest_first[20]}"' in page2
    back = client.get("/hands/", {"result": "won", "newer_than": str(newest_first[20])}).content.decode()
    assert listed(back) == newest_first[:20]
    # A link naming no hand of the player's, or not a hand at all, gives the first page.
    for bad in ("abc", "-1", "99999999", "9" * 40, "", "1e3"):
        for key in ("older_than", "newer_than", "page"):
            response = client.get("/hands/", {"result": "won", key: bad})
            assert response.status_code == 200 and listed(response.content.decode()) == newest_first[:20]


@pytest.mark.django_db
def test_my_hands_needs_a_login():
    response = Client().get("/hands/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# ---------------------------------------------------------------- languages


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "wanted"),
    [
        ("en", ["My hands", "Result", "Previous", "Next", "Download the hand file", "queen of clubs"]),
        ("bg", ["Моите ръце", "Резултат", "Назад", "Напред", "Изтеглете файла на ръката", "дама спатия"]),
    ],
)
def test_both_languages(players, lang, wanted):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players)
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(players["ann"])
    text = (
        client.get("/hands/").content.decode()
        + client.get(f"/hands/{hand.pk}/", {"step": 3}).content.decode()
    )
    for phrase in wanted:
        assert phrase in text, phrase


# ---------------------------------------------------------------- a hand played at a live table


@pytest.mark.django_db(transaction=True)
def test_a_hand_played_through_the_table_service():
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(dark_play=False)
    for position, user in enumerate((ann, bob)):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=500)
    async_to_sync(testing.stack_decks)(table_id=table.pk, decks=[deck("7C 8C 8D", "AH KH 9S")])
    state = async_to_sync(service.start_next_hand)(table_id=table.pk)
    info = state.doc["hand"]
    first_pos = (state.doc["dealer"] + 1) % 2
    users = {ann.pk: ann, bob.pk: bob}
    first = users[info["players"][info["positions"].index(first_pos)]]
    second = bob if first == ann else ann
    for user, verb, amount in ((first, "raise", 30), (second, "call", None)):
        now = async_to_sync(service.load_table_state)(table.pk)
        async_to_sync(service.table_act)(
            user=user,
            table_id=table.pk,
            verb=verb,
            amount=amount,
            client_version=now.version,
            action_id=f"{user.pk}-{verb}",
            epoch=now.doc["epoch"],
        )
    hand = PlayedHand.objects.get(table=table, number=1)
    assert hand.status == PlayedHand.Status.FINISHED
    held = {first: ["7C", "8C", "8D"], second: ["AH", "KH", "9S"]}
    for viewer, other in ((first, second), (second, first)):
        client = logged_in(viewer)
        listing = client.get("/hands/").content.decode()
        assert listed(listing) == [hand.pk]
        last = last_step(step_html(client, hand, 0))
        assert last == 2
        for step in range(last + 1):
            html = step_html(client, hand, step)
            assert all(shows_card(html, c) for c in held[viewer])
            assert any(shows_card(html, c) for c in held[other]) == (step == last), step
        # The file holds every deck: not served while the table's seed series runs.
        assert client.get(f"/hands/{hand.pk}/hand.json").status_code == 403
    SeedSeries.objects.filter(table=table).update(revealed_at=timezone.now(), end_reason="left")
    for viewer in (first, second):
        assert json.loads(logged_in(viewer).get(f"/hands/{hand.pk}/hand.json").content) == hand.record


def test_the_stake_filter_groups_its_amounts_in_each_language(players):
    ann = players["ann"]
    for language, thousand in (("en", "1,000"), ("bg", "1\xa0000")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(ann)
        page = client.get("/hands/").content.decode()
        assert f'<option value="1000">{thousand}</option>' in page, language
