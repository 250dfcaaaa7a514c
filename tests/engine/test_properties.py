"""Property tests over random legal playouts of 2-6 players (hypothesis).

The test keeps its own account of what every player paid, move by move, from the rules as
written (ante, dark bet, call, raise, join fee), and checks the engine's chips and pot against it.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.events import WON, ReplayDealt, SvaraOpened
from games.engine.hand import BETTING, DARK, FINISHED, JOIN, TIMEOUT_MEANS, Hand, IllegalAction

SEED = "ab" * 32

players_st = st.lists(st.integers(min_value=0, max_value=3000), min_size=2, max_size=6)


@st.composite
def hands(draw) -> Hand:
    stake = draw(st.sampled_from([1, 10, 50, 200, 1000]))
    chips = draw(players_st.filter(lambda cs, s=stake: sum(c >= 2 * s for c in cs) >= 2))
    return Hand.start(
        stake=stake,
        names=[f"p{i}" for i in range(len(chips))],
        chips=chips,
        dealer=draw(st.integers(min_value=0, max_value=len(chips) - 1)),
        dark_play=draw(st.booleans()),
        seeds={"server_seed": SEED, "client_seeds": ["x"], "nonce": draw(st.integers(0, 10**6))},
    )


def snapshot(hand: Hand) -> str:
    return json.dumps(hand.to_json(), sort_keys=True)


def illegal_moves(hand: Hand) -> list[tuple[int, str, object]]:
    legal = hand.legal()
    n = len(hand.names)
    moves: list[tuple[int, str, object]] = [
        ((legal.seat + 1) % n, legal.verbs[0], None),
        (legal.seat, "fly", None),
    ]
    if hand.phase == BETTING:
        moves += [
            (legal.seat, "raise", hand.cap() + 1),
            (legal.seat, "raise", 2.0),
            (legal.seat, "join", None),
        ]
        if legal.raise_range:
            moves.append((legal.seat, "raise", legal.raise_range[0] - 1))
    else:
        moves.append((legal.seat, "call", None))
    return moves


def assert_views_hide_cards(hand: Hand) -> None:
    for viewer in [None, *range(len(hand.names))]:
        view = hand.view_for(viewer)
        for p in view["players"]:
            if p["seat"] == viewer:
                continue
            if p["cards"] is not None:
                assert p["seat"] in hand.points, "another player's cards shown before showdown"
                assert hand.in_hand[p["seat"]], "a folded hand was shown"


def play_out_checking_invariants(hand: Hand, choose_verb, choose_raise) -> Hand:
    """Play a hand to the end with the given choosers, checking every invariant at every step."""
    start = list(hand.starting_chips)
    stake = hand.stake
    paid = [stake if c >= 2 * stake else 0 for c in start]
    pot_at_tie = None
    for _ in range(3000):
        # Conservation, and the pot is exactly what was paid in.
        if hand.phase != FINISHED:
            assert hand.pot == sum(paid)
            assert [s - p for s, p in zip(start, paid, strict=True)] == hand.chips
        assert all(c >= 0 for c in hand.chips)
        # JSON round trip is exact.
        text = snapshot(hand)
        assert snapshot(Hand.from_json(json.loads(text))) == text
        assert_views_hide_cards(hand)
        if hand.phase == FINISHED:
            break
        legal = hand.legal()
        assert legal is not None and legal.seat == hand.to_act
        if hand.phase in (DARK, BETTING):
            assert hand.in_hand[legal.seat], "a folded player was asked to act"
        if hand.phase == JOIN:
            # A window is one (svaras) count: a replay can go straight into the next window.
            if pot_at_tie is None or pot_at_tie[0] != hand.svaras:
                pot_at_tie = (hand.svaras, sum(paid))
            assert legal.join_fee == (pot_at_tie[1] + 1) // 2  # half the pot at the tie, rounded up
        else:
            pot_at_tie = None
        # Exactly one player may act: everyone else is refused, and refusals change nothing.
        for seat, verb, amount in illegal_moves(hand):
            try:
                hand.act(seat, verb, amount)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"illegal move accepted: {seat} {verb} {amount}")
            assert snapshot(hand) == text
        verb = choose_verb([*legal.verbs, "timeout"])
        seat = legal.seat
        amount = None
        paid_before = paid[seat]
        if verb == "raise":
            amount = choose_raise(*legal.raise_range)
            paid[seat] += amount - hand.bets[seat]
        elif verb == "call":
            paid[seat] += hand.target - hand.bets[seat]
        elif verb == "dark":
            paid[seat] += stake * 2 ** sum(1 for a in hand.actions if a[1] == "dark")
        elif verb == "join":
            paid[seat] += legal.join_fee
        made = TIMEOUT_MEANS[hand.phase] if verb == "timeout" else verb
        if made == "fold" and hand.target == 0:
            made = "pass"  # nothing to call: the fold is a pass
        svaras, showdowns = hand.svaras, len(hand.showdowns)
        events = hand.act(seat, verb, amount)
        assert_events_tell_the_move(hand, events, made=made, seat=seat, put_in=paid[seat] - paid_before)
        assert_events_tell_the_outcomes(hand, events[1:], svaras=svaras, showdowns=showdowns)
    else:
        raise AssertionError("the hand did not end")
    # Finished: the winner took the whole pot; nothing created or lost.
    assert hand.phase == FINISHED and hand.to_act is None
    assert sum(hand.chips) == sum(start)
    winner = hand.winner
    assert hand.chips[winner] == start[winner] - paid[winner] + sum(paid)
    assert hand.legal() is None
    return hand


def assert_events_tell_the_move(hand: Hand, events: tuple, *, made: str, seat: int, put_in: int) -> None:
    """The first event is the move as made (a timeout's move, a fold named a pass when nothing
    was to call) with what it put in: the chips for a dark bet, a call or a join, the bet raised to."""
    kind, who, chips = events[0]
    assert (kind, who) == (made, seat)
    if kind == "raise":
        assert chips == hand.actions[-1][2]
    elif kind in ("dark", "call", "join"):
        assert chips == put_in > 0
    else:
        assert chips is None and put_in == 0


def assert_events_tell_the_outcomes(hand: Hand, outcomes: tuple, *, svaras: int, showdowns: int) -> None:
    """What the move led to, in order: one svara per tied showdown it brought, each replay dealt
    (numbered on from the last), and the award exactly when the hand ended with a winner."""
    ties = []
    for shown in hand.showdowns[showdowns:]:
        best = max(points for points, _cards in shown.values())
        ties.append((tuple(int(s) for s, (p, _c) in shown.items() if p == best), best))
    opened = [e for e in outcomes if isinstance(e, SvaraOpened)]
    assert [(e.tied, e.points) for e in opened] == [t for t in ties if len(t[0]) > 1]
    if hand.phase == JOIN and opened:
        assert opened[-1].fee == hand.join_fee and opened[-1].pot == hand.pot
    replays = [e.number for e in outcomes if isinstance(e, ReplayDealt)]
    assert replays == list(range(svaras + 1, hand.svaras + 1))
    won = [e for e in outcomes if e[0] == WON]
    if hand.phase == FINISHED:
        assert won == [(WON, hand.winner, hand.pot)] and outcomes[-1] == won[0]
    else:
        assert not won
    assert len(outcomes) == len(opened) + len(replays) + len(won)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=hands(), data=st.data())
def test_random_playouts_keep_every_invariant(hand: Hand, data) -> None:
    stake = hand.stake
    play_out_checking_invariants(
        hand,
        lambda verbs: data.draw(st.sampled_from(verbs)),
        lambda low, high: data.draw(st.integers(low, min(high, low + 5 * stake)) | st.just(high)),
    )


def test_many_seeded_random_playouts_reach_svaras_and_keep_every_invariant() -> None:
    """Hypothesis shrinks towards the first choice; plain random play reaches more svaras."""
    rng = random.Random(20261130)
    svaras = joins = 0
    for nonce in range(600):
        n = rng.randint(2, 6)
        chips = [rng.choice([0, 15, 40, 100, 500, 1000]) + rng.randint(0, 60) for _ in range(n)]
        if sum(c >= 20 for c in chips) < 2:
            continue
        hand = Hand.start(
            stake=10,
            names=[f"p{i}" for i in range(n)],
            chips=chips,
            dealer=rng.randrange(n),
            dark_play=rng.random() < 0.7,
            seeds={"server_seed": SEED, "client_seeds": ["y"], "nonce": nonce},
        )
        play_out_checking_invariants(hand, rng.choice, rng.randint)
        svaras += hand.svaras
        joins += sum(1 for a in hand.actions if a[1] == "join")
    # The run must exercise svaras and joins, or it proves little about them.
    assert svaras >= 10 and joins >= 3, (svaras, joins)


@settings(max_examples=100, deadline=None)
@given(hand=hands())
def test_a_hand_in_the_join_window_lets_folded_players_join(hand: Hand) -> None:
    # Play the hand by always calling or checking the minimum until it ends or reaches a svara.
    for _ in range(500):
        legal = hand.legal()
        if legal is None or hand.phase == JOIN:
            break
        if "dark" in legal.verbs:
            hand.act(legal.seat, "decline")
        elif "call" in legal.verbs:
            hand.act(legal.seat, "call")
        elif "raise" in legal.verbs:
            hand.act(legal.seat, "raise", legal.raise_range[0])
        else:
            hand.act(legal.seat, "fold")
    if hand.phase == JOIN:
        asked = hand.to_act
        assert asked not in hand.tied
        assert hand.chips[asked] >= hand.join_fee + hand.stake
