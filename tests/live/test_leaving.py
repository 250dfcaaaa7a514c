"""Leaving mid-hand folds that hand at once, whoever's turn it is (RULES.md §5); the seat is cashed
out when the hand is settled, and the result names the winner even after they left."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.services import wallet_balance
from games.engine.hand import Hand
from games.live import service
from games.live.entries import log_text
from games.live.views import build_view
from tests.live.test_service_hands import act, audit_clean, seated_table, to_act

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_player_who_leaves_out_of_turn_is_folded_at_once_and_the_turn_stays() -> None:
    table, players = await seated_table(["ann", "bob", "cem"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    leaver = next(p for p in players if p.pk != first)
    state = await service.table_leave(user=leaver, table_id=table.pk)
    hand = Hand.from_json(state.doc["hand"]["state"])
    index = state.doc["hand"]["players"].index(leaver.pk)
    assert hand.in_hand[index] is False
    assert state.doc["hand"]["players"][hand.to_act] == first  # the turn did not move
    assert f"{leaver.username} folds" in log_text(state.doc)


async def test_heads_up_the_one_who_stays_wins_at_once_and_the_leaver_is_cashed_out() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    stayer = ann if first == ann.pk else bob
    leaver = bob if stayer is ann else ann
    await service.table_leave(user=leaver, table_id=table.pk)  # while the other is to act
    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is None and state.doc["ended"] is None  # ended and settled
    assert state.doc["last"]["winner_name"] == stayer.username
    assert all(s is None or s["user_id"] != leaver.pk for s in state.doc["seats"])
    assert await sync_to_async(wallet_balance)(user=leaver) == 500 + 490  # all but the ante
    await sync_to_async(audit_clean)()


async def test_three_leave_and_the_last_one_wins_the_pot_without_calling_anyone() -> None:
    table, players = await seated_table(["ann", "bob", "cem", "dan"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    stays = next(p for p in players if p.pk == first)
    await act(table, stays, "raise", 30)
    for leaver in [p for p in players if p is not stays]:
        await service.table_leave(user=leaver, table_id=table.pk)
    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is None
    assert state.doc["last"]["winner_name"] == stays.username
    assert f"{stays.username} wins 70" in "\n".join(log_text(state.doc))  # four antes and the raise
    await sync_to_async(audit_clean)()


async def test_the_result_names_a_winner_who_has_left_since() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    folder = ann if first == ann.pk else bob
    winner = bob if folder is ann else ann
    await act(table, folder, "fold")
    await service.table_leave(user=winner, table_id=table.pk)  # between hands: freed at once
    state = await service.load_table_state(table.pk)
    assert all(s is None or s["user_id"] != winner.pk for s in state.doc["seats"])
    view = build_view(state.doc, user_id=folder.pk, version=state.version)
    assert view["last"]["winner_name"] == winner.username  # never "None"
