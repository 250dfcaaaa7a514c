"""The computer's play (games/engine/bots.py): legal moves, exact odds, no peeking, and strength."""

from __future__ import annotations

import dataclasses
import random
import statistics
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.bots import duplicate_pair, level_player, random_player, server_seed
from games.engine import bots
from games.engine.bots import LEVELS, bot_view, decide, exact_odds, unseen_histogram
from games.engine.cards import DECK, parse_cards
from games.engine.hand import BETTING, DARK, JOIN, Hand
from games.engine.rules import RULES_V1
from games.engine.scoring import score_cards
from tests.engine.handkit import deal_deck, new_hand, play

SEED = "cd" * 32


def start(*, stake: int, chips: list[int], dealer: int, dark_play: bool, nonce: int) -> Hand:
    return Hand.start(
        stake=stake,
        names=[f"p{i}" for i in range(len(chips))],
        chips=chips,
        dealer=dealer,
        dark_play=dark_play,
        seeds={"server_seed": SEED, "client_seeds": ["t"], "nonce": nonce},
    )


def playout(hand: Hand, *, rng: random.Random, phases: Counter[str] | None = None) -> None:
    """Play to the end; at every decision every level must offer a move the engine accepts.

    The move played is one of the levels' or a random legal one, so the playouts also reach
    spots the bots alone would not (random raises, svaras with folded players who may join)."""
    while (legal := hand.legal()) is not None:
        seat = legal.seat
        view = bot_view(hand, seat)
        moves = []
        for level in LEVELS:
            verb, amount = decide(view, level=level, rng=rng)
            assert hand.refusal(seat, verb, amount) is None, (level, hand.phase, verb, amount, legal)
            moves.append((verb, amount))
        if phases is not None:
            phases[hand.phase] += 1
        moves.append(random_player(view, rng))
        verb, amount = rng.choice(moves)
        hand.act(seat, verb, amount)


@st.composite
def tables(draw: st.DrawFn) -> Hand:
    stake = draw(st.sampled_from([1, 10, 50, 200, 1000]))
    chips = draw(
        st.lists(st.integers(min_value=0, max_value=100 * stake), min_size=2, max_size=6).filter(
            lambda cs: sum(c >= 2 * stake for c in cs) >= 2
        )
    )
    return start(
        stake=stake,
        chips=chips,
        dealer=draw(st.integers(min_value=0, max_value=len(chips) - 1)),
        dark_play=draw(st.booleans()),
        nonce=draw(st.integers(min_value=0, max_value=10**6)),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=tables(), seed=st.integers(min_value=0, max_value=2**32))
def test_every_level_always_makes_a_legal_move(hand: Hand, seed: int) -> None:
    playout(hand, rng=random.Random(seed))
    assert hand.finished


def test_playouts_reach_every_kind_of_decision() -> None:
    # The property above is only as good as the spots it reaches: dark, betting and join windows.
    phases: Counter[str] = Counter()
    rng = random.Random(7)
    for nonce in range(150):
        players = 2 + nonce % 5
        hand = start(
            stake=10,
            chips=[rng.choice([25, 200, 2000]) for _ in range(players)],
            dealer=nonce % players,
            dark_play=nonce % 3 != 0,
            nonce=nonce,
        )
        if sum(c >= 20 for c in hand.starting_chips) >= 2:
            playout(hand, rng=rng, phases=phases)
    assert phases[DARK] > 10 and phases[BETTING] > 200 and phases[JOIN] > 0, phases


def svara_with_a_folded_player() -> Hand:
    # ann and bob tie on 10 (mixed suits); cid folded and may join for half the pot.
    deck = deal_deck("JC 10S 8D", "JD 10H 8S", "9C 9H 9D", rest="AS KS QS")
    hand = new_hand({"ann": 500, "bob": 500, "cid": 500}, dealer="cid", decks=[deck], dark_play=False)
    play(hand, "ann raise 10", "bob call", "cid fold")
    assert hand.phase == JOIN
    return hand


def test_join_decisions_follow_their_rules() -> None:
    hand = svara_with_a_folded_player()
    view = bot_view(hand, hand.to_act)
    assert view.join_fee == 25 and view.tied == (0, 1)
    # Hard: a three-way re-deal of 50 + 25 is worth 25 for a fee of 25, plus its skill edge: join.
    for level, want in (("hard", "join"), ("normal", "join"), ("easy", "join")):
        assert decide(view, level=level, rng=random.Random(1)) == (want, None)
    poor = bots.BotView(**_fields(view, chips=(480, 480, 100)))
    assert decide(poor, level="hard", rng=random.Random(1)) == ("skip", None)  # fee > a fifth of its chips
    assert decide(poor, level="normal", rng=random.Random(1)) == ("skip", None)


def _fields(view: bots.BotView, **changes: object) -> dict[str, object]:
    values = {name: getattr(view, name) for name in bots.BotView.__slots__}
    values.update(changes)
    return values


def test_joined_count_is_read_from_the_pot() -> None:
    assert bots._joined(pot=50, fee=25) == 0
    assert bots._joined(pot=75, fee=25) == 1
    assert bots._joined(pot=49, fee=25) == 0  # a pot of 49 has a fee of 25 (rounded up)
    assert bots._joined(pot=99, fee=25) == 2


# ---------------------------------------------------------------------- exact odds


def brute_force(cards: list[int]) -> tuple[int, int, int]:
    mine = score_cards(cards)
    rest = [c for c in DECK if c not in cards]
    win = tie = lose = 0
    for other in combinations(rest, 3):
        theirs = score_cards(other)
        win += mine > theirs
        tie += mine == theirs
        lose += mine < theirs
    return win, tie, lose


@pytest.mark.parametrize(
    "text",
    [
        "7D 7H 7S",
        "7C AH AD",
        "7C 8C 8D",
        "7C 9S JS",
        "7C 8H 9D",
        "7H 8D 8S",
        "JC 10S 8D",
        "AS AD 10C",
        "QD KD 10S",
        "10D 9D JD",
        "7H 7S KD",
        "7C 7H AH",
    ],
)
def test_exact_odds_match_a_brute_force_count(text: str) -> None:
    cards = parse_cards(text.split())
    odds = exact_odds(cards)
    assert (odds.win, odds.tie, odds.lose) == brute_force(cards)
    assert odds.total == 3654
    assert odds.p_win + odds.p_tie + odds.p_lose == pytest.approx(1.0)
    assert sum(unseen_histogram(cards)) == 3654


def test_exact_odds_checked_by_hand() -> None:
    # 7D 7H 7S (34): the only other seven is the 7C, so no hand can reach 34: it never loses or ties.
    assert exact_odds(parse_cards(["7D", "7H", "7S"])) == bots.Odds(win=3654, tie=0, lose=0)
    # 7C AH AD (33): only 7D 7H 7S (34) beats it; no other 33 (needs the 7C or three aces).
    assert exact_odds(parse_cards(["7C", "AH", "AD"])) == bots.Odds(win=3653, tie=0, lose=1)
    # 7H 8D 8S (8, the lowest): ties only 7D 8C 8H and 7S 8C 8H, beats nothing.
    assert exact_odds(parse_cards(["7H", "8D", "8S"])) == bots.Odds(win=0, tie=2, lose=3652)


def test_exact_odds_reject_a_bad_hand() -> None:
    with pytest.raises(ValueError):
        exact_odds([1, 1, 2])
    with pytest.raises(ValueError):
        exact_odds([1, 2])


# ---------------------------------------------------------------------- no peeking


def hidden_card_variants(hand: Hand, seat: int, rng: random.Random) -> Hand:
    """The same hand with every other player's cards replaced by other cards ``seat`` cannot see."""
    other = Hand.from_json(hand.to_json())
    own = set(hand.cards[seat])
    pool = [c for c in DECK if c not in own]
    rng.shuffle(pool)
    for s in range(len(other.names)):
        if s != seat and other.cards[s]:
            other.cards[s] = [pool.pop() for _ in range(3)]
    return other


def test_decisions_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(11)
    checked = changes = 0
    for nonce in range(120):
        players = 2 + nonce % 4
        hand = start(stake=10, chips=[500] * players, dealer=nonce % players, dark_play=True, nonce=nonce)
        while (legal := hand.legal()) is not None:
            seat = legal.seat
            changed = hidden_card_variants(hand, seat, rng)
            changes += changed.cards != hand.cards
            assert bot_view(changed, seat) == bot_view(hand, seat)
            for level in LEVELS:
                one = decide(bot_view(hand, seat), level=level, rng=random.Random(nonce))
                two = decide(bot_view(changed, seat), level=level, rng=random.Random(nonce))
                assert one == two
                checked += 1
            verb, amount = decide(bot_view(hand, seat), level=rng.choice(LEVELS), rng=rng)
            hand.act(seat, verb, amount)
    assert checked > 500 and changes > 100


def test_bot_view_is_only_for_the_seat_to_act() -> None:
    hand = start(stake=10, chips=[500, 500], dealer=0, dark_play=False, nonce=1)
    with pytest.raises(ValueError):
        bot_view(hand, 1 - hand.to_act)
    with pytest.raises(ValueError):
        decide(bot_view(hand, hand.to_act), level="expert", rng=random.Random(0))


# ---------------------------------------------------------------------- hard's play


def betting_spot(cards: str) -> bots.BotView:
    """Heads-up, no dark bet: the first to act (bob) holds ``cards`` and may open."""
    deck = deal_deck(cards, "8C 9D JH", rest="AS KS")
    hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deck], dark_play=False)
    return bot_view(hand, hand.names.index("bob"))


def test_raise_sizes_do_not_tell_strength() -> None:
    # Hard's heuristic (several opponents; here heads-up to read it alone):
    # a strong hand (value) and a weak one (bluff) draw their raise sizes from the same distribution.
    strong, weak = betting_spot("7C AH AD"), betting_spot("7H 8D 9S")
    sizes: dict[str, set[int]] = {"strong": set(), "weak": set()}
    for name, view in (("strong", strong), ("weak", weak)):
        rng = random.Random(3)
        for _ in range(600):
            verb, amount = bots.heuristic(view, level="hard", rng=rng)
            if verb == "raise":
                assert amount is not None
                sizes[name].add(amount)
    assert len(sizes["strong"]) == len(bots.SIZES)
    assert sizes["weak"] == sizes["strong"]


def test_hard_bluffs_at_its_documented_rate() -> None:
    view = betting_spot("7H 8D 9S")  # 9 points: never opens for value
    rng = random.Random(5)
    raises = sum(bots.heuristic(view, level="hard", rng=rng)[0] == "raise" for _ in range(4000))
    assert raises / 4000 == pytest.approx(bots.OPEN_BLUFF_RATE, abs=0.03)


def test_hard_calls_a_shove_with_a_strong_hand_and_folds_a_weak_one() -> None:
    for cards, want in (("7C AH KH", "call"), ("7H 8D 9S", "fold")):
        deck = deal_deck("8C 9D JH", cards, rest="AS KS")  # bob (left of the dealer) is dealt first
        hand = new_hand({"ann": 500, "bob": 500}, dealer="ann", decks=[deck], dark_play=False)
        play(hand, "bob raise 490")
        view = bot_view(hand, 0)
        assert decide(view, level="hard", rng=random.Random(0)) == (want, None)


def mean_and_half_width(results: list[float]) -> tuple[float, float]:
    return statistics.fmean(results), 1.96 * statistics.stdev(results) / len(results) ** 0.5


def test_hard_beats_random_play_in_duplicate() -> None:
    seed = server_seed("test-bots")
    hard = level_player("hard")
    results = [duplicate_pair(hard, random_player, seed=seed, deal=d) for d in range(2000)]
    mean, half = mean_and_half_width(results)
    assert mean - half > 5, (mean, half)


def test_normal_beats_random_play_in_duplicate() -> None:
    seed = server_seed("test-bots-normal")
    results = [duplicate_pair(level_player("normal"), random_player, seed=seed, deal=d) for d in range(1000)]
    mean, half = mean_and_half_width(results)
    assert mean - half > 5, (mean, half)


def test_the_blind_money_a_bot_reads_follows_the_hands_rules():
    """The dark chain is the hand's rules' (games.engine.rules), not S * 2^k written again."""
    tripling = dataclasses.replace(RULES_V1, version=99, dark_growth=3)
    hand = Hand.start(stake=10, names=["a", "b", "c", "d"], chips=[2000] * 4, dealer=0, rules=tripling)
    hand.act(1, "dark")
    hand.act(2, "dark")
    view = bot_view(hand, 3)
    assert view.dark == (0, 10, 30, 0) and view.dark_amount == 90
    assert decide(view, level="hard", rng=random.Random(1))[0] in {"dark", "decline"}
