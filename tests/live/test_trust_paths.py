"""Paths no scripted test walked before the model-based test found them (issue 30): a seat changing
hands during the result pause, and every tied player leaving a svara's join window."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from accounts.services import wallet_balance
from games.engine.hand import JOIN, Hand
from games.engine.handfile import replay
from games.live import service, testing
from games.live.entries import log_text
from games.live.views import build_view
from games.models import PlayedHand
from tests.live.tablekit import make_player
from tests.live.test_service_hands import act, audit_clean, deck, seated_table, to_act

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_newcomer_in_a_freed_seat_is_never_shown_the_leavers_folded_cards() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    state = await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    folder = ann if first == ann.pk else bob
    pos = next(p for p, s in enumerate(state.doc["seats"]) if s and s["user_id"] == folder.pk)
    await act(table, folder, "fold")
    await service.table_leave(user=folder, table_id=table.pk)  # settled: freed at once
    cem = await sync_to_async(make_player)("cem")
    state = await service.table_sit(user=cem, table_id=table.pk, position=pos, buy_in=500)
    assert state.doc["hand"] is None and state.doc["last"] is not None  # still the result pause
    view = build_view(state.doc, user_id=cem.pk, version=state.version)
    mine = view["seats"][pos]
    assert mine["is_me"] and mine["name"] == "cem"
    assert mine["cards"] is None and mine["points"] is None  # the leaver's folded hand is not cem's
    assert not mine["folded"] and not mine["won"]
    # The folder, had they stayed, would have seen their own hand: the document still holds it.
    assert str(pos) in state.doc["last"]["dealt"]


async def test_the_winner_seat_taken_by_a_newcomer_does_not_make_the_newcomer_the_winner() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    folder = ann if first == ann.pk else bob
    winner = bob if folder is ann else ann
    await act(table, folder, "fold")
    state = await service.table_leave(user=winner, table_id=table.pk)
    pos = state.doc["last"]["winner"]
    cem = await sync_to_async(make_player)("cem")
    state = await service.table_sit(user=cem, table_id=table.pk, position=pos, buy_in=500)
    for viewer in (cem.pk, folder.pk, None):
        seat = build_view(state.doc, user_id=viewer, version=state.version)["seats"][pos]
        assert seat["name"] == "cem" and not seat["won"]


def _replay_page(user, pk: int):
    client = Client()
    client.force_login(user)
    return client.get(f"/hands/{pk}/")


async def _svara_with_a_third(players_names=("ann", "bob", "cem")):
    """Three seated; the first two from the dealer's left tie on 30, the third folds: a join window."""
    table, players = await seated_table(list(players_names), dark_play=False)
    await testing.stack_decks(table_id=table.pk, decks=[deck("10C 10D 10H", "QC QD QH", "8D 9H 7S")])
    state = await service.start_next_hand(table_id=table.pk)
    positions = state.doc["hand"]["positions"]
    dealer = state.doc["dealer"]
    order = [positions[(positions.index(dealer) + k) % 3] for k in range(1, 4)]
    users = {u.pk: u for u in players}
    p1, p2, p3 = (users[state.doc["seats"][pos]["user_id"]] for pos in order)
    await act(table, p1, "raise", 20)
    await act(table, p2, "call")
    state = await act(table, p3, "fold")
    engine = Hand.from_json(state.doc["hand"]["state"])
    assert engine.phase == JOIN and engine.pot == 70 and await to_act(table) == p3.pk
    return table, (p1, p2, p3)


@pytest.mark.timeout(60)  # before the fix the engine looked for a player for ever
async def test_both_tied_players_leaving_the_join_window_call_the_svara_off() -> None:
    table, (p1, p2, p3) = await _svara_with_a_third()
    await service.table_leave(user=p1, table_id=table.pk)
    state = await service.table_leave(user=p2, table_id=table.pk)
    # Called off at once: p3 is not asked, the hand is settled and the seats of the two are freed.
    assert state.doc["hand"] is None and state.doc["ended"] is None
    assert state.doc["last"]["winner"] is None
    assert "the svara is called off" in "\n".join(log_text(state.doc))
    assert [s["user_id"] for s in state.doc["seats"] if s] == [p3.pk]
    # The pot of 70 (three antes, two bets of 20) split 35 / 35, each share to that wallet.
    assert await sync_to_async(wallet_balance)(user=p1) == 1000 - 500 + (500 - 10 - 20 + 35)
    assert await sync_to_async(wallet_balance)(user=p2) == 1000 - 500 + (500 - 10 - 20 + 35)
    view = build_view(state.doc, user_id=p3.pk, version=state.version)
    assert view["last"]["called_off"] and not any(s.get("won") for s in view["seats"])
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status == "finished" and record.winner_id is None and record.pot == 70
    assert replay(record.record) == record.record["result"]
    assert record.record["result"]["winner"] is None
    # Its replay page opens for a player of it and says nobody won.
    page = await sync_to_async(_replay_page)(p1, record.pk)
    assert page.status_code == 200 and "Wins the pot" not in page.content.decode()
    await sync_to_async(audit_clean)()
    # The table goes on: p3 alone waits, and nothing waits for nobody.
    assert state.doc["timer"] is None or state.doc["timer"]["kind"] != "turn"


@pytest.mark.timeout(60)
async def test_a_third_player_who_skips_after_both_tied_left_finds_the_hand_already_over() -> None:
    table, (p1, p2, p3) = await _svara_with_a_third()
    await service.table_leave(user=p2, table_id=table.pk)
    await service.table_leave(user=p1, table_id=table.pk)
    state = await service.load_table_state(table.pk)
    before = state.version
    with pytest.raises(service.Refused):
        await act(table, p3, "skip")
    state = await service.load_table_state(table.pk)
    assert state.version == before and state.doc["hand"] is None
    await sync_to_async(audit_clean)()
