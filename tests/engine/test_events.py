"""What a move did (games.engine.events): ``Hand.act`` returns one event per thing that happened,
in order, for every kind: dark bet, decline, call, raise, fold, leave, svara opened, join, skip,
replay dealt, won, and a svara called off with its pot split."""

from __future__ import annotations

import random

from games.engine.cards import parse_card
from games.engine.events import (
    Called,
    CalledOff,
    DarkBet,
    Declined,
    Folded,
    Joined,
    Left,
    Raised,
    ReplayDealt,
    Skipped,
    Split,
    SvaraOpened,
    Won,
)
from games.engine.hand import FINISHED, JOIN, Hand
from tests.engine.test_properties import SEED


def _deck(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def _three(*, dark_play: bool, deck: str = "AH 8C 9D KH 10C JD QH 7D 8S") -> Hand:
    # Dealt from bob (left of ann, the dealer): bob AH KH QH (hearts, 31), cem 8C 10C 7D, ann 9D JD 8S.
    return Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=dark_play,
        decks=[_deck(deck)],
    )


def test_dark_bets_a_decline_a_call_a_raise_a_fold_and_the_win():
    hand = _three(dark_play=True)
    assert hand.act(1, "dark") == [DarkBet(seat=1, amount=10)]
    assert hand.act(2, "dark") == [DarkBet(seat=2, amount=20)]
    assert hand.act(0, "decline") == [Declined(seat=0)]
    # T = 40; ann acts first (left of cem, the last dark bettor).
    assert hand.act(0, "call") == [Called(seat=0, amount=40)]
    assert hand.act(1, "raise", 60) == [Raised(seat=1, to=60)]
    assert hand.act(2, "fold") == [Folded(seat=2)]
    assert hand.act(0, "timeout") == [Folded(seat=0), Won(seat=1, pot=30 + 60 + 20 + 40)]
    assert hand.phase == FINISHED and hand.winner == 1


def test_a_timeout_in_the_dark_round_is_a_decline():
    hand = _three(dark_play=True)
    assert hand.act(1, "timeout") == [Declined(seat=1)]


def test_a_leave_out_of_turn_and_the_last_one_standing_wins():
    hand = _three(dark_play=False)
    assert hand.act(2, "leave") == [Left(seat=2)]
    assert hand.act(1, "leave") == [Left(seat=1), Won(seat=0, pot=30)]


def test_a_leave_on_ones_turn_is_one_event_not_a_fold_too():
    hand = _three(dark_play=False)
    assert hand.act(1, "leave") == [Left(seat=1)]


def _svara(deck: str = "10C QC 8D 10D QD 9H 10H QH 7S") -> Hand:
    # bob and cem tie on 30 (three tens, three queens); ann folds and may join for 25.
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=False,
        decks=[_deck(deck), _deck("AH KH QH 8C 9D JS 7H 8H 9H")],
    )
    hand.act(1, "raise", 10)
    hand.act(2, "call")
    return hand


def test_a_tie_opens_the_svara_a_join_and_the_replay_dealt():
    hand = _svara()
    assert hand.act(0, "fold") == [Folded(seat=0), SvaraOpened(tied=(1, 2), join_fee=25)]
    assert hand.phase == JOIN
    # ann joins: the last asked, so the replay is dealt at once, to all three from bob.
    assert hand.act(0, "join") == [Joined(seat=0, fee=25), ReplayDealt(deal=1, seats=(1, 2, 0))]


def test_a_skip_and_a_replay_dealt_to_the_tied_only():
    hand = _svara()
    hand.act(0, "fold")
    assert hand.act(0, "skip") == [Skipped(seat=0), ReplayDealt(deal=1, seats=(1, 2))]


def test_a_svara_called_off_gives_the_fees_back_and_splits_the_pot():
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem", "dan"],
        chips=[500] * 4,
        dealer=0,
        dark_play=False,
        decks=[_deck("10C QC 8D AS 10D QD 9H KH 10H QH 7S JD")],
    )
    hand.act(1, "raise", 20)
    hand.act(2, "call")
    hand.act(3, "fold")
    assert hand.act(0, "call") == [Called(seat=0, amount=20), SvaraOpened(tied=(1, 2), join_fee=50)]
    assert hand.act(3, "join") == [Joined(seat=3, fee=50)]
    assert hand.act(1, "leave") == [Left(seat=1)]
    assert hand.act(2, "leave") == [
        Left(seat=2),
        CalledOff(refunds=((3, 50),)),
        Split(shares=((1, 50), (2, 50))),
    ]
    assert hand.chips == [470, 520, 520, 490]


def test_events_tell_every_chip_of_random_hands():
    """Over random hands, the chips the events say moved add up to the hand's own figures."""
    rng = random.Random(7)
    for nonce in range(300):
        players = 2 + nonce % 5
        hand = Hand.start(
            stake=10,
            names=[f"p{i}" for i in range(players)],
            chips=[rng.choice([60, 200, 1000]) for _ in range(players)],
            dealer=nonce % players,
            seeds={"server_seed": SEED, "client_seeds": ["x"], "nonce": nonce},
        )
        put_in = [0] * players
        paid = [0] * players
        while (legal := hand.legal()) is not None:
            verb = rng.choice(legal.verbs)
            amount = legal.raise_range[0] if verb == "raise" and legal.raise_range else None
            bet_before = hand.bets[legal.seat]
            for event in hand.act(legal.seat, verb, amount):
                if isinstance(event, DarkBet | Called | Joined):
                    put_in[event.seat] += event.amount if not isinstance(event, Joined) else event.fee
                elif isinstance(event, Raised):
                    put_in[event.seat] += event.to - bet_before
                elif isinstance(event, Won):
                    paid[event.seat] += event.pot
                elif isinstance(event, Split):
                    for seat, chips in event.shares:
                        paid[seat] += chips
                elif isinstance(event, CalledOff):
                    for seat, fee in event.refunds:
                        paid[seat] += fee
        stake_in = [10 if c >= 20 else 0 for c in hand.starting_chips]  # the antes
        assert [
            s - a - p + w for s, a, p, w in zip(hand.starting_chips, stake_in, put_in, paid)
        ] == hand.chips
