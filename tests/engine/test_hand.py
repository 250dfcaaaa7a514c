"""Hand-computed scenarios for each rule of RULES.md §4, and refusals."""

import json

import pytest

from games.engine.hand import BETTING, DARK, FINISHED, JOIN, Hand, IllegalAction
from tests.engine.handkit import chips, deal_deck, new_hand, play

# Dealing order with dealer "ann" among ann, bob, cem is bob, cem, ann.
BOB_21_CEM_11_ANN_17 = deal_deck("7C 8S 10H", "AH 9S JD", "KD QC 7D")


def seat(hand: Hand, name: str) -> int:
    return hand.names.index(name)


def test_antes_are_taken_and_the_dark_round_starts_left_of_the_dealer():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 300}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    assert hand.pot == 30
    assert chips(hand) == {"ann": 490, "bob": 490, "cem": 290}
    assert hand.phase == DARK
    legal = hand.legal()
    assert legal.seat == seat(hand, "bob")
    assert legal.verbs == ("dark", "decline")
    assert legal.dark_amount == 10


def test_dark_chain_doubles_and_ends_when_the_turn_comes_back_to_the_first_dark_bettor():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 500}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob dark", "cem dark 20")
    assert hand.legal().dark_amount == 40
    play(hand, "ann dark 40")
    # Back to bob, the first dark bettor: the dark round is over; cards are dealt.
    assert hand.phase == BETTING
    assert hand.pot == 30 + 10 + 20 + 40
    assert hand.target == 80  # twice the last dark bet
    # First to act: left of the last dark bettor (ann) = bob, who tops up.
    legal = hand.legal()
    assert legal.seat == seat(hand, "bob")
    assert legal.to_call == 70
    assert legal.raise_range == (90, 490)


def test_dark_bet_with_a_wrong_amount_is_refused_and_changes_nothing():
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deal_deck("7C 8S 10H", "AH 9S JD")])
    before = json.dumps(hand.to_json())
    with pytest.raises(IllegalAction, match="a dark bet now is 10, not 20"):
        hand.act(seat(hand, "bob"), "dark", 20)
    assert json.dumps(hand.to_json()) == before


def test_dark_offer_stops_when_twice_the_bet_would_pass_the_cap():
    # cem has 60: after the ante, bet + chips = 50. Dark bets 10, 20 are fine (2x <= 50); 40 is not.
    hand = new_hand({"ann": 500, "bob": 500, "cem": 60}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob dark", "cem dark")
    assert hand.phase == BETTING  # ann is never offered 40
    assert hand.target == 40
    assert hand.cap() == 50


def test_heads_up_dark_is_non_dealer_then_dealer_and_the_dark_bettors_top_up():
    deck = deal_deck("7C 8S 10H", "AH 9S JD")  # bob 21, ann 11
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deck])
    play(hand, "bob dark", "ann dark")
    assert hand.target == 40
    assert hand.legal().seat == seat(hand, "bob")  # left of ann, the last dark bettor
    play(hand, "bob call")  # 10 -> 40
    assert hand.legal().seat == seat(hand, "ann")  # ann has 20 in, must top up
    play(hand, "ann call")
    assert hand.phase == FINISHED
    assert hand.winner == seat(hand, "bob")
    assert hand.pot == 100
    assert chips(hand) == {"ann": 450, "bob": 550}


def test_dealer_wins_when_nobody_opens():
    hand = new_hand(
        {"ann": 500, "bob": 500, "cem": 500}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17], dark_play=False
    )
    assert hand.phase == BETTING and hand.target == 0
    assert hand.legal().verbs == ("fold", "raise")
    play(hand, "bob pass", "cem pass")
    assert hand.finished and hand.winner == seat(hand, "ann")
    assert chips(hand) == {"ann": 520, "bob": 490, "cem": 490}
    assert hand.points == {}  # no cards shown


def test_last_dark_bettor_wins_when_nobody_answers():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 500}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob dark", "cem dark", "ann decline")
    assert hand.target == 40
    play(hand, "ann fold", "bob fold")
    assert hand.finished and hand.winner == seat(hand, "cem")
    assert hand.pot == 60
    assert chips(hand) == {"ann": 490, "bob": 480, "cem": 530}


def test_heads_up_without_dark_a_call_ends_the_betting():
    deck = deal_deck("7C 8S 10H", "AH 9S JD")
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deck], dark_play=False)
    play(hand, "bob raise 30", "ann call")
    assert hand.finished
    assert hand.points == {seat(hand, "bob"): 21, seat(hand, "ann"): 11}
    assert chips(hand) == {"ann": 460, "bob": 540}


def test_raise_limits_minimum_and_cap():
    deck = deal_deck("7C 8S 10H", "AH 9S JD")
    hand = new_hand({"ann": 500, "bob": 120}, dealer="ann", decks=[deck], dark_play=False)
    assert hand.cap() == 110
    bob = seat(hand, "bob")
    for amount, reason in [
        (5, "the smallest raise is to 10"),
        (111, "the most you can raise to is 110 \\(the cap\\)"),
        (30.0, "whole number"),
        ("40", "whole number"),
        (True, "whole number"),
        (None, "say how much"),
    ]:
        before = json.dumps(hand.to_json())
        with pytest.raises(IllegalAction, match=reason):
            hand.act(bob, "raise", amount)
        assert json.dumps(hand.to_json()) == before
    play(hand, "bob raise 105")
    legal = hand.legal()
    assert legal.verbs == ("fold", "call")  # 105 + 10 > cap 110: no raise left
    assert legal.raise_range is None
    with pytest.raises(IllegalAction, match="no raise is possible"):
        hand.act(seat(hand, "ann"), "raise", 110)


def test_not_your_turn_and_wrong_phase_messages():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 300}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    with pytest.raises(IllegalAction, match="not your turn: it is bob's"):
        hand.act(seat(hand, "ann"), "dark")
    with pytest.raises(IllegalAction, match="not dealt yet"):
        hand.act(seat(hand, "bob"), "call")
    play(hand, "bob decline")
    with pytest.raises(IllegalAction, match="dark round is over"):
        hand.act(seat(hand, "bob"), "dark")
    with pytest.raises(IllegalAction, match="nothing to call"):
        hand.act(seat(hand, "bob"), "call")
    with pytest.raises(IllegalAction, match="unknown move"):
        hand.act(seat(hand, "bob"), "allin")
    play(hand, "bob fold", "cem fold")
    with pytest.raises(IllegalAction, match="the hand is over"):
        hand.act(seat(hand, "ann"), "fold")


def test_player_below_two_stakes_is_not_dealt_in():
    hand = new_hand(
        {"ann": 500, "bob": 19, "cem": 300}, dealer="ann", decks=[deal_deck("AH 9S JD", "KD QC 7D")]
    )
    assert hand.in_hand == [True, False, True]
    assert hand.pot == 20 and chips(hand)["bob"] == 19
    assert hand.legal().seat == seat(hand, "cem")


def test_svara_with_a_joiner_then_a_replay_win():
    # ann is dealer; bob and cem tie on 21 (both: wild-less 10+J hearts / suited); ann folds.
    first = deal_deck("10H JH 8C", "10S JS 8D", "9C 9D 8H")  # bob 20, cem 20, ann 9
    replay = deal_deck("AH AD 9S", "KC QC 8S", "7D 8D JC")  # bob 22, cem 20, ann 18 (dealing order)
    hand = new_hand(
        {"ann": 500, "bob": 500, "cem": 500}, dealer="ann", decks=[first, replay], dark_play=False
    )
    play(hand, "bob raise 20", "cem call", "ann fold")
    assert hand.phase == JOIN
    assert hand.points == {seat(hand, "bob"): 20, seat(hand, "cem"): 20}
    assert hand.pot == 70
    legal = hand.legal()
    assert legal.seat == seat(hand, "ann") and legal.verbs == ("join", "skip")
    assert legal.join_fee == 35  # half of 70, rounded up
    play(hand, "ann join")
    assert hand.svaras == 1 and hand.phase == BETTING
    assert hand.pot == 105 and hand.target == 0
    assert hand.legal().seat == seat(hand, "bob")  # left of the same dealer
    play(hand, "bob raise 10", "cem call", "ann call")
    assert hand.finished and hand.winner == seat(hand, "bob")
    assert hand.pot == 135
    assert chips(hand) == {
        "ann": 500 - 10 - 35 - 10,
        "bob": 500 - 10 - 20 - 10 + 135,
        "cem": 500 - 10 - 20 - 10,
    }
    assert sum(hand.chips) == 1500


def test_double_svara_keeps_growing_the_pot_until_one_hand_wins():
    tie = deal_deck("10H JH 8C", "10S JS 8D")  # 20 and 20 heads-up, dealer ann: bob first
    tie2 = deal_deck("KH QH 8S", "KD QD 9C")
    win = deal_deck("AH AD 9S", "KC QC 8H")
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[tie, tie2, win], dark_play=False)
    play(hand, "bob raise 10", "ann call")
    # Heads-up: nobody else to ask, so the replay is dealt at once.
    assert hand.svaras == 1 and hand.phase == BETTING and hand.pot == 40
    play(hand, "bob raise 10", "ann call")
    assert hand.svaras == 2 and hand.pot == 60
    play(hand, "bob raise 50", "ann call")
    assert hand.finished and hand.winner == seat(hand, "bob") and hand.pot == 160
    assert chips(hand) == {"ann": 420, "bob": 580}


def test_straight_to_showdown_when_someone_still_in_has_no_chips():
    # bob goes all in and ties; the replay has cap 0 < S, so it is dealt and shown at once.
    tie = deal_deck("10H JH 8C", "10S JS 8D")
    win = deal_deck("AH AD 9S", "KC QC 8H")
    hand = new_hand({"ann": 500, "bob": 100}, dealer="ann", decks=[tie, win], dark_play=False)
    play(hand, "bob raise 90", "ann call")
    assert hand.finished and hand.svaras == 1
    assert hand.winner == seat(hand, "bob")
    assert chips(hand) == {"ann": 400, "bob": 200}


def test_timeouts_mean_decline_fold_and_skip():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 500}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob timeout")
    assert hand.phase == BETTING  # timeout in the dark round is a decline
    play(hand, "bob timeout")
    assert not hand.in_hand[seat(hand, "bob")]  # in betting it is a fold
    assert hand.actions[:2] == [[1, "timeout"], [1, "timeout"]]


def test_json_round_trip_is_exact_mid_hand():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 300}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob dark", "cem decline")
    text = json.dumps(hand.to_json(), sort_keys=True)
    again = Hand.from_json(json.loads(text))
    assert json.dumps(again.to_json(), sort_keys=True) == text
    play(again, "cem fold", "ann raise 40", "bob call")
    assert again.winner == seat(again, "bob")


def test_views_show_own_cards_only_until_showdown_and_folded_hands_never():
    hand = new_hand({"ann": 500, "bob": 500, "cem": 300}, dealer="ann", decks=[BOB_21_CEM_11_ANN_17])
    play(hand, "bob dark", "cem decline")
    bob, cem, ann = seat(hand, "bob"), seat(hand, "cem"), seat(hand, "ann")
    view = hand.view_for(bob)
    assert view["players"][bob]["cards"] is not None
    assert view["players"][cem]["cards"] is None and view["players"][ann]["cards"] is None
    assert all(p["cards"] is None for p in hand.view_for(None)["players"])
    assert view["own_points"] == 21
    play(hand, "cem fold", "ann raise 40", "bob call")
    for viewer in (None, ann, bob, cem):
        players = hand.view_for(viewer)["players"]
        assert players[bob]["cards"] is not None and players[ann]["cards"] is not None
        assert players[cem]["cards"] is None if viewer != cem else players[cem]["cards"] is not None
    assert "decks" not in json.dumps(hand.view_for(None))


@pytest.mark.parametrize("odd", [float, str, lambda seat: None])
def test_a_seat_that_is_not_a_whole_number_is_refused_and_changes_nothing(odd):
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deal_deck("7C 8S 10H", "AH 9S JD")])
    to_act = hand.legal().seat
    before = json.dumps(hand.to_json(), sort_keys=True)

    with pytest.raises(IllegalAction) as refused:
        hand.act(odd(to_act), "decline")  # 1.0 equals the seat to act, but indexes nothing

    assert refused.value.code == "no_such_seat"
    assert json.dumps(hand.to_json(), sort_keys=True) == before
