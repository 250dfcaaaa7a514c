"""Sit-and-go numbers (games.engine.tournament, RULES.md §8): formats, level stakes, places, prizes
and a cancelled tournament's shares. Properties: no chip is made or lost by any split."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from games.engine.hand import Hand
from games.engine.rules import SIT_AND_GO_V1
from games.engine.tournament import (
    FORMATS,
    STARTING_CHIPS,
    Out,
    SitAndGo,
    TournamentError,
    cancellation_shares,
    gone_out,
    level_at,
    places,
    prize_amounts,
    prizes_by_place,
    stake_at_level,
)
from tests.engine.handkit import chips, deal_deck, play


def test_the_room_offers_twelve_sit_and_gos_each_named_by_a_stable_key():
    assert len(FORMATS) == 12 and len({f.key for f in FORMATS}) == 12
    assert STARTING_CHIPS == 1500
    turbo = SitAndGo.from_key("6-turbo-500")
    assert turbo == SitAndGo(seats=6, speed="turbo", buy_in=500) and turbo.level_seconds == 300
    assert SitAndGo.from_key("2-regular-100").level_seconds == 600
    assert [SitAndGo.from_key(f.key) for f in FORMATS] == list(FORMATS)


@pytest.mark.parametrize(
    "key", ["3-turbo-500", "6-fast-500", "6-turbo-501", "6-turbo", "x-turbo-1", None, ""]
)
def test_a_format_section_8_does_not_offer_is_refused_with_the_reason(key):
    with pytest.raises(TournamentError):
        SitAndGo.from_key(key)


def test_the_levels_are_section_8s_then_half_again_rounded_to_a_hundred():
    assert [stake_at_level(n) for n in range(1, 17)] == [
        10, 15, 25, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000,
    ]  # fmt: skip
    assert [stake_at_level(n) for n in range(17, 21)] == [4500, 6800, 10200, 15300]
    for bad in (0, -1, True, 1.0):
        with pytest.raises(TournamentError):
            stake_at_level(bad)  # type: ignore[arg-type]


def test_a_new_level_starts_on_the_boundary():
    assert level_at(elapsed_seconds=0, level_seconds=300) == 1
    assert level_at(elapsed_seconds=299.9, level_seconds=300) == 1
    assert level_at(elapsed_seconds=300, level_seconds=300) == 2
    with pytest.raises(TournamentError):
        level_at(elapsed_seconds=-1, level_seconds=300)


@given(st.integers(min_value=18, max_value=60))
def test_later_levels_grow_by_about_half_and_stay_multiples_of_a_hundred(level):
    before, now = stake_at_level(level - 1), stake_at_level(level)
    assert now % 100 == 0 and abs(now - 1.5 * before) <= 50


def test_heads_up_pays_the_winner_the_pool_and_six_max_pays_two_places():
    assert prize_amounts(pool=200, seats=2) == (200,)
    assert prize_amounts(pool=6 * 500, seats=6) == (1950, 1050)
    assert prize_amounts(pool=601, seats=6) == (391, 210)  # 35 % of 601 is 210.35: first gets the rest
    assert SitAndGo.from_key("6-regular-100").prizes() == (390, 210)


def test_places_go_by_the_reverse_order_of_going_out_then_stacks_then_shared():
    outs = [
        Out(player="f", hand=3, began_with=100),
        Out(player="d", hand=9, began_with=400),
        Out(player="e", hand=9, began_with=250),
        Out(player="b", hand=20, began_with=700),
        Out(player="c", hand=20, began_with=700),
    ]
    groups = places(outs=outs, winner="a")
    assert groups == [["a"], ["b", "c"], ["d"], ["e"], ["f"]]
    # b and c share second and third: 35 % of the pool and nothing, 1,050 / 2 each.
    assert prizes_by_place(groups=groups, pool=3000, seats=6) == {
        "a": 1950, "b": 525, "c": 525, "d": 0, "e": 0, "f": 0,
    }  # fmt: skip


def test_a_shared_place_gives_the_odd_chip_to_the_first_in_the_order_given():
    groups = [["a", "b"], ["c"]]  # a and b share first and second (601 x 65 % + 601 x 35 %)
    assert prizes_by_place(groups=groups, pool=601, seats=6) == {"a": 301, "b": 300, "c": 0}


def test_going_out_twice_or_winning_after_going_out_is_refused():
    with pytest.raises(TournamentError):
        places(outs=[Out(player="a", hand=1, began_with=5)], winner="a")
    with pytest.raises(TournamentError):
        twice = [Out(player="b", hand=1, began_with=5), Out(player="b", hand=2, began_with=5)]
        places(outs=twice, winner="a")


@st.composite
def finished_tournaments(draw):
    seats = draw(st.sampled_from([2, 6]))
    players = [f"p{i}" for i in range(seats)]
    order = draw(st.permutations(players))
    outs = [
        Out(player=p, hand=draw(st.integers(1, 4)), began_with=draw(st.sampled_from([1, 50, 50, 900])))
        for p in order[1:]
    ]
    pool = draw(st.integers(0, 10**9))
    return seats, order[0], outs, pool


@given(finished_tournaments())
def test_every_chip_of_the_pool_is_paid_and_a_better_place_never_gets_less(case):
    seats, winner, outs, pool = case
    groups = places(outs=outs, winner=winner)
    assert sorted(p for g in groups for p in g) == sorted([winner, *(o.player for o in outs)])
    prizes = prizes_by_place(groups=groups, pool=pool, seats=seats)
    assert sum(prizes.values()) == pool and min(prizes.values()) >= 0
    best = [max(prizes[p] for p in g) for g in groups]
    worst = [min(prizes[p] for p in g) for g in groups]
    assert all(worst[i] >= best[i + 1] for i in range(len(groups) - 1))


def test_a_cancelled_tournament_shares_the_pool_by_the_chips_held():
    shares = cancellation_shares(pool=3000, chips={"a": 4500, "b": 4500, "c": 0})
    assert shares == {"a": 1500, "b": 1500, "c": 0}
    # 1,000 x 1/3 each: 333 each and the one chip left to the first in the order given.
    assert cancellation_shares(pool=1000, chips={"a": 10, "b": 10, "c": 10}) == {"a": 334, "b": 333, "c": 333}
    # The largest remainder first: 100 x 2/3 = 66.7 and 100 x 1/3 = 33.3.
    assert cancellation_shares(pool=100, chips={"a": 1, "b": 2}) == {"a": 33, "b": 67}
    with pytest.raises(TournamentError):
        cancellation_shares(pool=100, chips={"a": 0})


@given(
    st.integers(0, 10**9),
    st.dictionaries(st.text(min_size=1, max_size=3), st.integers(0, 9000), min_size=1, max_size=6),
)
def test_cancellation_shares_sum_to_the_pool_and_follow_the_chips(pool, chips):
    assume(sum(chips.values()) > 0)
    shares = cancellation_shares(pool=pool, chips=chips)
    assert sum(shares.values()) == pool
    total = sum(chips.values())
    for player, held in chips.items():
        assert abs(shares[player] - pool * held / total) < 1
        if held == 0:
            assert shares[player] == 0


# The sit-and-go's hand (SIT_AND_GO_V1): every stack with a chip is dealt in, a short stack antes
# all it has, and the cap (§4) leaves nobody room to bet when someone has nothing behind.


def sng_hand(chips: dict[str, int], *, deck: list[int], stake: int = 10, dark_play: bool = True) -> Hand:
    names = list(chips)
    return Hand.start(
        stake=stake,
        names=names,
        chips=list(chips.values()),
        dealer=0,
        dark_play=dark_play,
        decks=[deck],
        rules=SIT_AND_GO_V1,
    )


def test_a_short_stack_is_dealt_in_and_antes_all_it_has_then_the_hand_goes_to_the_showdown():
    deck = deal_deck("7C 8S 10H", "AH 9S JD", "KD QC 7D")  # bob 21, cem 11, ann 17
    hand = sng_hand({"ann": 3, "bob": 900, "cem": 15}, deck=deck)
    assert hand.in_hand == [True, True, True]
    # Ann antes her 3 chips: nobody can bet past her, so there is no dark round and no betting.
    assert hand.finished and hand.pot == 3 + 10 + 10
    assert chips(hand) == {"ann": 0, "bob": 890 + 23, "cem": 5}
    assert sum(chips(hand).values()) == 3 + 900 + 15


def test_a_table_keeps_its_two_stake_rule_where_a_sit_and_go_deals_any_chip_in():
    with pytest.raises(ValueError, match="20 chips needed"):
        Hand.start(
            stake=10, names=["a", "b"], chips=[19, 500], dealer=0, decks=[deal_deck("7C 8S 10H", "AH 9S JD")]
        )
    hand = sng_hand({"a": 1, "b": 500}, deck=deal_deck("7C 8S 10H", "AH 9S JD"))  # b (dealt first) 21, a 11
    assert hand.finished and chips(hand) == {"a": 0, "b": 501}
    with pytest.raises(ValueError, match="1 chips needed"):
        sng_hand({"a": 0, "b": 500}, deck=deal_deck("7C 8S 10H", "AH 9S JD"))


def test_deep_stacks_play_the_sit_and_go_hand_as_the_table_does():
    deck = deal_deck("7C 8S 10H", "AH 9S JD")
    table = Hand.start(stake=10, names=["a", "b"], chips=[1500, 1500], dealer=0, decks=[deck])
    sng = sng_hand({"a": 1500, "b": 1500}, deck=deck)
    for hand in (table, sng):
        play(hand, "b dark", "a decline", "a call", "b call")
    assert chips(table) == chips(sng) and table.finished and sng.finished


@given(
    st.lists(st.integers(0, 60), min_size=2, max_size=6).filter(lambda c: sum(x > 0 for x in c) >= 2),
    st.integers(0, 2**32),
    st.randoms(use_true_random=False),
)
def test_any_sit_and_go_hand_ends_with_every_chip_in_a_stack(stacks, nonce, rnd):
    names = [f"p{i}" for i in range(len(stacks))]
    seeds = {"server_seed": "ab" * 32, "client_seeds": names, "nonce": nonce}
    # Without a deck the hand stops before its deal: who was dealt in, and the antes.
    waiting = Hand.start(stake=10, names=names, chips=stacks, dealer=0, rules=SIT_AND_GO_V1)
    assert waiting.in_hand == [c > 0 for c in stacks]
    assert waiting.pot == sum(min(c, 10) for c in stacks)
    hand = Hand.start(stake=10, names=names, chips=stacks, dealer=0, seeds=seeds, rules=SIT_AND_GO_V1)
    for _ in range(500):
        legal = hand.legal()
        if legal is None:
            break
        verb = rnd.choice(legal.verbs)
        amount = legal.raise_range[0] if verb == "raise" and legal.raise_range else None
        hand.act(legal.seat, verb, amount)
    assert hand.finished
    assert sum(hand.chips) == sum(stacks) and min(hand.chips) >= 0


def test_a_hand_puts_out_the_players_it_left_with_nothing():
    outs = gone_out(
        hand=7, began={"a": 300, "b": 40, "c": 0, "d": 900}, ended={"a": 0, "b": 0, "c": 0, "d": 1240}
    )
    assert outs == [Out(player="a", hand=7, began_with=300), Out(player="b", hand=7, began_with=40)]
    assert places(outs=outs, winner="d") == [["d"], ["a"], ["b"]]
