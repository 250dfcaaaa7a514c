"""A player who leaves folds at once, whoever's turn it is (RULES.md §5): ``act(seat, "leave")``.

Worked cases for each phase, then random hands (hypothesis) where players leave at random moments:
chips are kept, the hand always ends, nobody who left is asked to act, wins or is dealt into a
replay, and the state round-trips through JSON.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import parse_card
from games.engine.events import CalledOff, Split
from games.engine.hand import BETTING, DARK, FINISHED, JOIN, Hand, IllegalAction
from tests.engine.test_properties import SEED, hands


def _deck(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def _three(dark_play: bool = False, deck: str = "AH 8C 9D KH 10C JD QH 7D 8S") -> Hand:
    # dealer 0: seats 1, 2, 0 in that order
    return Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=dark_play,
        decks=[_deck(deck)],
    )


def test_leaving_out_of_turn_folds_that_hand_and_the_turn_stays() -> None:
    hand = _three()
    assert hand.phase == BETTING and hand.to_act == 1
    hand.act(2, "leave")
    assert hand.in_hand == [True, True, False]
    assert hand.to_act == 1
    hand.act(1, "raise", 20)
    assert hand.to_act == 0  # cem is skipped
    hand.act(0, "call")
    assert hand.phase == FINISHED and 2 not in hand.points  # a folded hand is never shown
    assert sum(hand.chips) == 1500


def test_when_every_other_player_leaves_the_one_left_wins_at_once() -> None:
    hand = _three()
    hand.act(1, "raise", 40)
    hand.act(0, "leave")
    hand.act(2, "leave")
    assert hand.phase == FINISHED and hand.winner == 1
    assert hand.chips == [490, 520, 490]  # the antes and his own raise back


def test_leaving_on_ones_turn_is_a_fold() -> None:
    hand = _three()
    hand.act(1, "leave")
    assert hand.in_hand == [True, False, True] and hand.to_act == 2


def test_a_dark_bettor_who_leaves_still_ends_the_round_where_they_sat() -> None:
    hand = _three(dark_play=True)
    assert hand.phase == DARK and hand.to_act == 1
    hand.act(1, "dark")  # bob, the first dark bettor: 10
    hand.act(2, "dark")  # cem 20
    hand.act(1, "leave")  # bob leaves while ann decides
    hand.act(0, "dark")  # ann 40: the turn would pass bob's seat to cem, who already decided
    assert hand.phase == BETTING  # so the round is over, as when it comes back to the first bettor
    assert hand.target == 80 and hand.to_act == 2  # left of the last dark bettor, bob skipped
    assert hand.in_hand == [True, False, True] and sum(hand.chips) + hand.pot == 1500


def test_leaving_the_dark_round_on_ones_turn_folds_and_the_next_decides() -> None:
    hand = _three(dark_play=True)
    hand.act(1, "leave")
    assert hand.phase == DARK and hand.to_act == 2 and hand.in_hand == [True, False, True]


def test_a_tied_player_who_leaves_the_svara_leaves_the_other_the_pot() -> None:
    # bob and cem tie on 30 (three tens against three queens? no: 10+10+10 v Q+Q+Q, both 30).
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=False,
        decks=[_deck("10C QC 8D 10D QD 9H 10H QH 7S")],
    )
    hand.act(1, "raise", 10)
    hand.act(2, "call")
    hand.act(0, "fold")
    assert hand.phase == JOIN and sorted(hand.tied) == [1, 2] and hand.to_act == 0  # ann may join
    hand.act(2, "leave")
    hand.act(0, "skip")
    assert hand.phase == FINISHED and hand.winner == 1
    assert sum(hand.chips) == 1500


def test_leave_is_refused_to_a_hand_already_folded_and_takes_no_amount() -> None:
    hand = _three()
    hand.act(1, "fold")
    with pytest.raises(IllegalAction) as refused:
        hand.act(1, "leave")
    assert refused.value.code == "not_in_hand"
    with pytest.raises(IllegalAction) as refused:
        hand.act(2, "leave", 10)
    assert refused.value.code == "no_amount"


@settings(max_examples=300, deadline=None)
@given(hand=hands(), data=st.data())
def test_random_leaves_keep_every_chip_and_end_every_hand(hand: Hand, data: st.DataObject) -> None:
    total = sum(hand.starting_chips)
    left: set[int] = set()
    for _ in range(3000):
        if hand.phase == FINISHED:
            break
        assert sum(hand.chips) + hand.pot == total
        assert hand.to_act is not None and hand.to_act not in left
        involved = [s for s in range(len(hand.names)) if hand.refusal(s, "leave") is None]
        if involved and data.draw(st.integers(0, 5)) == 0:
            seat = data.draw(st.sampled_from(involved))
            hand.act(seat, "leave")
            left.add(seat)
        else:
            legal = hand.legal()
            verb = data.draw(st.sampled_from(legal.verbs))
            amount = None
            if verb == "raise":
                amount = data.draw(st.integers(*legal.raise_range))
            hand.act(legal.seat, verb, amount)
        again = Hand.from_json(json.loads(json.dumps(hand.to_json())))
        assert again.to_json() == hand.to_json()
        if hand.phase == BETTING:
            assert not any(hand.in_hand[s] for s in left)  # never dealt into a replay
    assert hand.phase == FINISHED
    assert sum(hand.chips) == total
    assert hand.winner not in left


@settings(max_examples=100, deadline=None)
@given(hand=hands())
def test_everyone_but_one_leaving_leaves_that_one_the_pot(hand: Hand) -> None:
    seats = [s for s in range(len(hand.names)) if hand.in_hand[s]]
    stays = seats[-1]
    for seat in seats[:-1]:
        hand.act(seat, "leave")
    assert hand.phase == FINISHED and hand.winner == stays
    assert sum(hand.chips) == sum(hand.starting_chips)
    assert SEED  # the seeds made every deck


# RULES.md §5: when every tied player has left before the replay is dealt, the svara is called
# off at once: nobody more is asked, join fees go back, and the pot is split among the tied players.
# Before this rule the engine dealt a replay to nobody and looped for ever looking for a player.


def _svara_between_bob_and_cem(seeds: dict | None = None) -> Hand:
    # bob and cem tie on 30 (three tens, three queens); ann folded and may join for 25.
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=False,
        decks=[_deck("10C QC 8D 10D QD 9H 10H QH 7S")],
        seeds=seeds,
    )
    hand.act(1, "raise", 10)
    hand.act(2, "call")
    hand.act(0, "fold")
    assert hand.phase == JOIN and hand.tied == [1, 2] and hand.to_act == 0 and hand.join_fee == 25
    return hand


def test_both_tied_players_leaving_calls_the_svara_off_and_splits_the_pot() -> None:
    hand = _svara_between_bob_and_cem(seeds={"server_seed": SEED, "client_seeds": ["x"], "nonce": 0})
    hand.act(1, "leave")
    assert hand.phase == JOIN and hand.to_act == 0  # cem still plays for the pot
    hand.act(2, "leave")
    # Called off at once: ann, still asked, is asked no more.
    assert hand.phase == FINISHED and hand.to_act is None and hand.winner is None
    assert hand.chips == [490, 505, 505]  # the pot of 50 split 25 / 25
    assert hand.svaras == 0 and sum(hand.chips) == 1500
    with pytest.raises(IllegalAction):
        hand.act(0, "skip")


def test_a_called_off_svara_gives_the_join_fees_back() -> None:
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem", "dan"],
        chips=[500, 500, 500, 500],
        dealer=0,
        dark_play=False,
        # dealt from bob: bob 10C 10D 10H and cem QC QD QH (30 each), dan 8D 9H 7S, ann AS KH JD (11)
        decks=[_deck("10C QC 8D AS 10D QD 9H KH 10H QH 7S JD")],
    )
    hand.act(1, "raise", 20)
    hand.act(2, "call")
    hand.act(3, "fold")
    hand.act(0, "call")
    assert hand.phase == JOIN and hand.tied == [1, 2] and hand.pot == 100
    assert hand.join_queue == [0] and hand.to_act == 3  # dan first (left of the dealer), then ann
    assert hand.act(3, "join") == (("join", 3, 50),)  # dan pays 50
    assert hand.act(1, "leave") == (("leave", 1, None),)
    # The last tied player leaving: the svara is called off, dan's fee goes back, the pot is split.
    assert hand.act(2, "leave") == (
        ("leave", 2, None),
        CalledOff("called_off", 100, ((3, 50),)),
        Split("split", ((1, 50), (2, 50))),
    )
    assert hand.phase == FINISHED and hand.winner is None
    # dan has his fee back; the pot of 100 (ante 10 + 20 from bob, cem and ann, ante 10 from dan)
    # goes half to bob and half to cem.
    assert hand.chips == [470, 520, 520, 490] and sum(hand.chips) == 2000


def test_the_called_off_pot_splits_with_the_odd_chip_to_the_first_tied_from_the_dealers_left() -> None:
    hand = Hand.start(
        stake=5,
        names=["ann", "bob", "cem"],
        chips=[500, 500, 500],
        dealer=0,
        dark_play=False,
        decks=[_deck("10C QC 8D 10D QD 9H 10H QH 7S")],
    )
    hand.act(1, "raise", 10)
    hand.act(2, "call")
    hand.act(0, "raise", 16)
    hand.act(1, "raise", 21)
    hand.act(2, "call")
    hand.act(0, "fold")
    assert hand.phase == JOIN and hand.tied == [1, 2] and hand.pot == 73  # 15 antes, 16, 21, 21
    hand.act(2, "leave")  # the order of leaving does not matter
    hand.act(1, "leave")
    assert hand.phase == FINISHED and hand.winner is None
    # bob, the first tied player clockwise from the dealer's left, gets the odd chip.
    assert hand.chips == [479, 474 + 37, 474 + 36]


def test_a_joiner_who_leaves_after_paying_is_not_dealt_into_the_replay() -> None:
    hand = _svara_between_bob_and_cem(seeds={"server_seed": SEED, "client_seeds": ["x"], "nonce": 0})
    hand.act(0, "join")  # ann pays 20: the replay deals at once (nobody else to ask)
    assert hand.phase == BETTING and hand.in_hand == [True, True, True] and hand.svaras == 1
