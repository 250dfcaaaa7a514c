"""The profile and the player page show one summary of a player's hands: the same hands played,
hands won and biggest pot won (RULES.md §4: the pot the winner takes, the whole of it), after the
same hands, played through the site's services: a hand won at a showdown, a svara won in its
replay (the pot carried over, a joiner's fee in it), and a svara called off, its pot split."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games.live import service, testing
from games.models import PlayedHand
from tests.live.test_service_hands import act, deck, seated_table
from tests.live.test_service_hands import (
    test_four_players_dark_bets_and_a_svara_with_a_joiner as play_a_svara_won_in_its_replay,
)
from tests.live.test_trust_paths import _svara_with_a_third as svara_with_a_third

pytestmark = pytest.mark.django_db(transaction=True)

PROFILE = {"played": "hands-played", "won": "hands-won", "pot": "biggest-pot"}
PLAYER = {"played": "player-hands", "won": "player-won", "pot": "player-pot"}


def figures(user, path: str, ids: dict[str, str]) -> dict[str, int]:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    page = client.get(path).content.decode()
    found = {}
    for key, dd in ids.items():
        match = re.search(rf'<dd id="{dd}">([\d,]+)</dd>', page)
        assert match, (path, dd)
        found[key] = int(match.group(1).replace(",", ""))
    return found


def both_pages(user) -> tuple[dict[str, int], dict[str, int]]:
    return figures(user, "/profile/", PROFILE), figures(user, f"/players/{user.username}/", PLAYER)


async def test_a_showdown_won_shows_the_same_pot_on_the_profile_and_the_player_page():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await testing.stack_decks(table_id=table.pk, decks=[deck("7C 8C 8D", "AH KH 9S")])
    state = await service.start_next_hand(table_id=table.pk)
    users = {ann.pk: ann, bob.pk: bob}
    first = users[
        state.doc["hand"]["players"][0 if state.doc["hand"]["positions"][0] != state.doc["dealer"] else 1]
    ]
    second = bob if first is ann else ann
    await act(table, first, "raise", 30)
    await act(table, second, "call")
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.pot == 80 and record.winner_id == first.pk  # each put in 40: the winner takes 80
    profile, player = await sync_to_async(both_pages)(first)
    assert profile == player == {"played": 1, "won": 1, "pot": 80}
    profile, player = await sync_to_async(both_pages)(second)
    assert profile == player == {"played": 1, "won": 0, "pot": 0}


async def test_a_svara_won_in_its_replay_shows_the_same_figures_on_both_pages():
    await play_a_svara_won_in_its_replay()
    record = await sync_to_async(PlayedHand.objects.select_related("winner").get)(number=1)
    assert record.pot == 210  # 120 carried out of the tie, a joiner's 60, three calls of 10
    for player in await sync_to_async(lambda: [p.user for p in record.players.select_related("user")])():
        profile, page = await sync_to_async(both_pages)(player)
        won = player.pk == record.winner_id
        assert profile == page == {"played": 1, "won": int(won), "pot": 210 if won else 0}, player.username


async def test_a_svara_called_off_counts_each_tied_players_share_as_the_pot_they_won():
    """Both tied players leave the join window (RULES.md §5): no winner, the pot of 70 split 35 /
    35. Each took a pot of 35: a hand won, 35 their biggest pot; the one who folded won nothing."""
    table, (p1, p2, p3) = await svara_with_a_third()
    await service.table_leave(user=p1, table_id=table.pk)
    await service.table_leave(user=p2, table_id=table.pk)
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.winner_id is None and record.pot == 70
    for player, figures in ((p1, (1, 35)), (p2, (1, 35)), (p3, (0, 0))):
        profile, page = await sync_to_async(both_pages)(player)
        won, pot = figures
        assert profile == page == {"played": 1, "won": won, "pot": pot}, player.username
