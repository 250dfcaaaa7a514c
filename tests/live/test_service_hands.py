"""Hands at a live table driven through the table service, with stacked decks so every
result can be computed by hand: chips, ledger and stored hand must agree."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from accounts.services import seat_balance, wallet_balance
from games.engine.handfile import replay
from games.live import process, runtime, service, testing
from games.live.clock import TurnClock
from games.live.entries import log_text, notice_text
from games.live.store import get_state_store
from games.models import HandPlayer, PlayedHand, Seat
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def deck(*hands: str, rest: str = "") -> list[str]:
    """Deal these hands in dealing order (left of the dealer first)."""
    cards = [h.split() for h in hands]
    return [cards[p][k] for k in range(3) for p in range(len(cards))] + rest.split()


async def seated_table(names: list[str], *, buy_in: int = 500, **table_fields):
    players = [await sync_to_async(make_player)(n) for n in names]
    table = await sync_to_async(make_table)(seat_count=max(2, len(names)), **table_fields)
    for pos, user in enumerate(players):
        await service.table_sit(user=user, table_id=table.pk, position=pos, buy_in=buy_in)
    return table, players


async def act(table, user, verb, amount=None, *, action_id=None):
    state = await service.load_table_state(table.pk)
    return await service.table_act(
        user=user,
        table_id=table.pk,
        verb=verb,
        amount=amount,
        client_version=state.version,
        action_id=action_id or f"{user.pk}-{state.version}-{verb}",
        epoch=state.doc["epoch"],
    )


async def to_act(table):
    state = await service.load_table_state(table.pk)
    hand = state.doc["hand"]
    from games.engine.hand import Hand

    h = Hand.from_json(hand["state"])
    return hand["players"][h.to_act]


async def deal_the_replay(table) -> None:
    """End a svara's pause now, as its timer does."""
    state = await service.load_table_state(table.pk)
    due = await get_state_store().claim_due(now=state.doc["timer"]["at"] + 0.01)
    await runtime.handle_due(next(d for d in due if d.table_id == str(table.pk)))


def audit_clean() -> None:
    call_command("audit_chips")  # raises SystemExit on a mismatch


async def test_heads_up_showdown_settles_chips_ledger_and_stored_hand():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    # Dealer is drawn; stack a deck where whoever is left of the dealer gets 7C 8C 8D (27).
    await testing.stack_decks(table_id=table.pk, decks=[deck("7C 8C 8D", "AH KH 9S")])
    state = await service.start_next_hand(table_id=table.pk)
    hand = state.doc["hand"]
    first, _second = hand["players"][hand["positions"].index((state.doc["dealer"] + 1) % 2)], None
    users = {ann.pk: ann, bob.pk: bob}
    first_user = users[first]
    second_user = users[bob.pk if first == ann.pk else ann.pk]
    assert await to_act(table) == first_user.pk
    await act(table, first_user, "raise", 30)
    state = await act(table, second_user, "call")
    assert state.doc["hand"] is None and state.doc["ended"] is None  # settled
    assert state.doc["last"]["winner"] is not None
    winner_pos = state.doc["last"]["winner"]
    assert state.doc["seats"][winner_pos]["user_id"] == first_user.pk
    assert await sync_to_async(seat_balance)(user=first_user, table_id=table.pk) == 540
    assert await sync_to_async(seat_balance)(user=second_user, table_id=table.pk) == 460
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status == "finished" and record.pot == 80 and record.winner_id == first_user.pk
    # Replaying the stored hand file gives its stored result.
    assert replay(record.record) == record.record["result"]
    rows = await sync_to_async(
        lambda: sorted(HandPlayer.objects.filter(hand=record).values_list("chips_after", flat=True))
    )()
    assert rows == [460, 540]
    await sync_to_async(audit_clean)()


async def test_four_players_dark_bets_and_a_svara_with_a_joiner():
    table, players = await seated_table(["ann", "bob", "cem", "dan"], dark_play=True)
    # Dealing order from left of the dealer: p1 p2 p3 dealer. p1 and p2 tie on 20; p3 folds; dealer folds.
    first = deck("10H JH 8C", "10S JS 8D", "9C 9D 8H", "7H 8S 9H")
    replay_deck = deck("AH AD 9S", "KC QC 8S", "7D JD QS", rest="")  # p1 22, p2 20, joiner 17+...
    await testing.stack_decks(table_id=table.pk, decks=[first, replay_deck])
    state = await service.start_next_hand(table_id=table.pk)
    positions = state.doc["hand"]["positions"]
    dealer = state.doc["dealer"]
    order = [positions[(positions.index(dealer) + k) % 4] for k in range(1, 5)]
    by_pos = {s["user_id"]: s for s in state.doc["seats"] if s}
    users = {u.pk: u for u in players}
    seat_user = {pos: users[state.doc["seats"][pos]["user_id"]] for pos in order}
    p1, p2, p3, d = (seat_user[p] for p in order)
    assert by_pos  # seated
    # Dark round: p1 dark 10, p2 dark 20, p3 declines -> T = 40, first to act p3.
    await act(table, p1, "dark")
    await act(table, p2, "dark")
    await act(table, p3, "decline")
    assert await to_act(table) == p3.pk
    await act(table, p3, "fold")
    await act(table, d, "fold")
    await act(table, p1, "call")  # 10 -> 40
    state = await act(table, p2, "call")  # 20 -> 40: p1 20 vs p2 20: svara
    hand = state.doc["hand"]
    assert hand is not None
    from games.engine.hand import JOIN, Hand

    engine = Hand.from_json(hand["state"])
    assert engine.phase == JOIN and engine.pot == 40 + 80
    assert engine.join_fee == 60
    # Asked clockwise from left of the dealer: p3 (folded) first, then the dealer.
    assert await to_act(table) == p3.pk
    await act(table, p3, "join")
    state = await act(table, d, "skip")
    engine = Hand.from_json(state.doc["hand"]["state"])
    assert engine.svaras == 1 and engine.pot == 180
    log = "\n".join(log_text(state.doc))
    assert "Svara! " in log and "tie on 20; the pot of 120 is replayed (join for 60)" in log
    assert "Svara replay 1 is dealt; the pot is 180" in log
    # The tied hands stay up for a moment; the replay's turn clock starts after it.
    assert state.doc["timer"]["kind"] == "svara"
    await deal_the_replay(table)
    # Replay: p1 22 (aces), p2 20, p3 7D JD QS = 20 (diamonds 7+10... 17? J+7 = 17; Q spades 10) -> p1 wins.
    await act(table, p1, "raise", 10)
    await act(table, p2, "call")
    state = await act(table, p3, "call")
    assert state.doc["hand"] is None
    winner = state.doc["seats"][state.doc["last"]["winner"]]["user_id"]
    assert winner == p1.pk
    chips = {u.pk: await sync_to_async(seat_balance)(user=u, table_id=table.pk) for u in players}
    assert chips[p1.pk] == 500 - 10 - 40 - 10 + 210
    assert chips[p2.pk] == 500 - 10 - 40 - 10
    assert chips[p3.pk] == 500 - 10 - 60 - 10
    assert chips[d.pk] == 500 - 10
    assert sum(chips.values()) == 2000
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert replay(record.record) == record.record["result"]
    assert record.record["result"]["svaras"] == 1
    await sync_to_async(audit_clean)()


async def run_timers(table, fake_time, *, until, most: int = 12):
    """Fire the table's timers one by one, as the turn clock does when each falls due, the test's
    clock moved to each deadline in turn, until ``until(doc)`` holds; the state then."""
    clock = TurnClock(get_state_store(), runtime.handle_due, now=process.now)
    for _ in range(most):
        state = await service.load_table_state(table.pk)
        if until(state.doc):
            return state
        assert state.doc["timer"], log_text(state.doc)
        fake_time.at = max(fake_time.at, state.doc["timer"]["at"])
        assert await clock.tick() == 1
    raise AssertionError(f"not reached after {most} timers: {log_text(state.doc)}")


async def test_timeouts_fold_and_two_in_a_row_sit_out(fake_time):
    table, (_ann, _bob) = await seated_table(["ann", "bob"], dark_play=False, turn_seconds=1)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    turn = (await service.load_table_state(table.pk)).doc["timer"]
    assert turn["kind"] == "turn" and turn["at"] == fake_time.at + 1
    # Nobody acts: the clock folds the player to act; the other wins the antes.
    state = await run_timers(table, fake_time, until=lambda doc: doc["hand"] is None and doc["ended"] is None)
    assert fake_time.at == turn["at"]  # at the turn's deadline, not before
    loser = state.doc["seats"][
        next(p for p, s in enumerate(state.doc["seats"]) if s and s["user_id"] == first)
    ]
    assert loser["timeouts"] == 1 and not loser["sitting_out"]
    assert "ran out of time" in " ".join(log_text(state.doc))

    def first_sits_out(doc) -> bool:
        return next(s for s in doc["seats"] if s and s["user_id"] == first)["sitting_out"]

    # The next hand starts on its own timer; the same player times out again and sits out.
    state = await run_timers(table, fake_time, until=first_sits_out)
    assert "sits out after 2 timeouts" in " ".join(log_text(state.doc))
    await sync_to_async(audit_clean)()


async def test_repeated_action_id_is_applied_once_and_stale_versions_are_refused():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    user = ann if first == ann.pk else bob
    state = await service.load_table_state(table.pk)
    kwargs = dict(user=user, table_id=table.pk, verb="raise", amount="20", epoch=state.doc["epoch"])
    after = await service.table_act(client_version=state.version, action_id="dup-1", **kwargs)
    again = await service.table_act(client_version=state.version, action_id="dup-1", **kwargs)
    assert again.version == after.version and again.doc == after.doc
    other = bob if user is ann else ann
    with pytest.raises(service.Refused, match="changed since"):
        await service.table_act(
            user=other,
            table_id=table.pk,
            verb="call",
            amount=None,
            client_version=state.version,
            action_id="stale-1",
            epoch=state.doc["epoch"],
        )
    assert (await service.load_table_state(table.pk)).version == after.version


async def test_leaving_mid_hand_folds_and_cashes_out_after_settlement():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    leaver = bob if first == ann.pk else ann
    stayer = ann if leaver is bob else bob
    await act(table, stayer, "raise", 20)
    state = await service.table_leave(user=leaver, table_id=table.pk)  # leaver is to act: folds now
    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is None and state.doc["ended"] is None
    assert all(s is None or s["user_id"] != leaver.pk for s in state.doc["seats"])
    assert await sync_to_async(wallet_balance)(user=leaver) == 500 + 490
    assert not await sync_to_async(Seat.objects.filter(user=leaver).exists)()
    await sync_to_async(audit_clean)()


async def test_lost_store_cancels_the_hand_and_every_seat_keeps_its_chips():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=True)
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    await act(table, ann if first == ann.pk else bob, "dark")
    # The store loses the table (Redis flushed or restarted).
    await get_state_store().delete(str(table.pk))
    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is None
    assert "cancelled" in notice_text(state.doc)
    assert [s["chips"] for s in state.doc["seats"]] == [500, 500]
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status == "cancelled"
    # Both players still find the cancelled hand in their history, with no chips moved.
    rows = await sync_to_async(
        lambda: list(HandPlayer.objects.filter(hand=record).values_list("chips_before", "chips_after"))
    )()
    assert rows == [(500, 500), (500, 500)]
    await sync_to_async(audit_clean)()


async def test_a_deadline_claimed_by_a_process_that_died_is_fired_by_the_sweep():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False, turn_seconds=1)
    state = await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    # A process claims the turn deadline and dies before handling it.
    claimed = await get_state_store().claim_due(now=state.deadline.at + 10)
    assert [c.table_id for c in claimed] == [str(table.pk)]
    assert await runtime.sweep_overdue(now=state.deadline.at + 1) == 0  # not overdue enough yet
    assert await runtime.sweep_overdue(now=state.deadline.at + 10) == 1
    state = await service.load_table_state(table.pk)
    seat = next(s for s in state.doc["seats"] if s and s["user_id"] == first)
    assert seat["timeouts"] == 1
    assert state.doc["hand"] is None  # heads-up: the timeout folded the hand
    # Sweeping again changes nothing: the state no longer carries that deadline.
    version = state.version
    await runtime.sweep_overdue(now=state.deadline.at - 100 if state.deadline else 0)
    assert (await service.load_table_state(table.pk)).version == version
