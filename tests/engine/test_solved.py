"""The solved strategy the hard level plays heads-up (games/engine/solved.py): it finds its spot in
every heads-up deal and svara replay from the seat's view alone, translates any raise size to the
nearest abstract one, plays legal moves, and leaves several opponents to the heuristic."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bench.bots import random_player
from games.engine import solved
from games.engine.bots import bot_view, decide
from games.engine.hand import BETTING, DARK, Hand

SEED = "ab" * 32


def start(
    *, stake: int, chips: list[int], dealer: int, dark_play: bool, ties: int = 0, nonce: int = 0
) -> Hand:
    """A hand of fair decks, or of ``ties`` deals in a row that end in a svara at a showdown."""
    return Hand.start(
        stake=stake,
        names=[f"p{i}" for i in range(len(chips))],
        chips=chips,
        dealer=dealer,
        dark_play=dark_play,
        decks=[solved.TIE_DECK] * ties,
        seeds={"server_seed": SEED, "client_seeds": ["t"], "nonce": nonce},
    )


def test_the_shipped_file_holds_the_deal_at_several_depths_and_the_replays() -> None:
    games = solved.games()
    deals = sorted(g.stack for g in games if g.kind == "deal")
    assert len(deals) >= 3 and 49 in deals  # practice: 500 chips at stake 10, the antes in
    assert any(g.kind == "replay" for g in games)
    root = next(g for g in games if g.kind == "deal").nodes[""]
    assert root.seat == 1 and root.actions == (("dark", ""), ("decline", "")) and len(root.rows) == 1


def test_the_nearest_depth_is_chosen_on_a_log_scale() -> None:
    # 1,000 chips at stake 10 behind the antes: 99 stakes, the deepest solved game.
    hand = start(stake=10, chips=[1000, 1200], dealer=0, dark_play=True)
    spot = solved.locate(bot_view(hand, 1), solved.games())
    assert spot is not None and spot.game.kind == "deal"
    assert spot.game.stack == max(g.stack for g in solved.games() if g.kind == "deal")


def test_a_persons_odd_raise_is_read_as_the_nearest_abstract_size() -> None:
    hand = start(stake=10, chips=[500, 500], dealer=0, dark_play=False)
    # Pot 20, nothing to call: half a pot is a raise to 10 (the minimum too), a pot to 20, twice to 40.
    hand.act(1, "raise", 50)  # 2.5 pots: nearest to "x2" (40) on a log scale, not "x4" (80)
    spot = solved.locate(bot_view(hand, 0), solved.games())
    assert spot is not None
    assert spot.game.nodes["1:decline:|1:raise:x2"] is spot.node


def test_a_svara_replay_is_played_from_its_own_solved_game() -> None:
    hand = start(stake=10, chips=[500, 500], dealer=0, dark_play=True, ties=1)
    hand.act(1, "decline")
    hand.act(1, "raise", 30)
    hand.act(0, "call")  # a tie: the pot of 80 is replayed by the same two
    assert hand.svaras == 1 and hand.phase == BETTING
    spot = solved.locate(bot_view(hand, hand.to_act), solved.games())
    assert spot is not None and spot.game.kind == "replay" and spot.node is spot.game.nodes[""]
    hand.act(hand.to_act, "raise", hand.target + 10)
    spot = solved.locate(bot_view(hand, hand.to_act), solved.games())
    assert spot is not None and spot.game.kind == "replay" and spot.node is spot.game.nodes["1:raise:min"]


def test_several_opponents_and_an_unreadable_history_are_left_to_the_heuristic() -> None:
    three = start(stake=10, chips=[500, 500, 500], dealer=0, dark_play=True)
    assert solved.move(bot_view(three, three.to_act), random.Random(1)) is None
    hand = start(stake=10, chips=[500, 500], dealer=0, dark_play=True)
    view = bot_view(hand, 1)
    forged = view.__class__(**{**{f: getattr(view, f) for f in view.__slots__}, "actions": ((0, "call"),)})
    assert solved.locate(forged, solved.games()) is None
    assert decide(forged, level="hard", rng=random.Random(1)) in {("dark", 10), ("decline", None)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stake=st.sampled_from([1, 10, 50, 200]),
    stacks=st.tuples(st.integers(2, 150), st.integers(2, 150)),
    dealer=st.integers(0, 1),
    dark_play=st.booleans(),
    ties=st.integers(0, 2),
    seed=st.integers(0, 2**32),
)
def test_every_heads_up_decision_is_found_in_a_solved_game_and_legal(
    stake: int, stacks: tuple[int, int], dealer: int, dark_play: bool, ties: int, seed: int
) -> None:
    """Invariants over whole hands against a random player (any raise size, svaras included):
    hard's every dark and betting decision has a spot in a solved game of the right kind, and
    the move it makes the engine accepts."""
    rng = random.Random(seed)
    hand = start(
        stake=stake, chips=[s * stake for s in stacks], dealer=dealer, dark_play=dark_play, ties=ties
    )
    hard = rng.randrange(2)
    while (legal := hand.legal()) is not None:
        view = bot_view(hand, legal.seat)
        if legal.seat == hard:
            assert hand.phase in (DARK, BETTING)
            spot = solved.locate(view, solved.games())
            # A dark chain longer than the solved depth's (a fifth dark bet and on) is off the
            # solved games: the heuristic plays it.
            if spot is None:
                assert hand.dark_bets >= 5, (hand.actions, hand.svaras, stacks)
            else:
                assert spot.game.kind == ("replay" if hand.svaras else "deal")
            verb, amount = decide(view, level="hard", rng=rng)
            assert hand.refusal(legal.seat, verb, amount) is None
        else:
            verb, amount = random_player(view, rng)
        hand.act(legal.seat, verb, amount)
    assert hand.finished


class HeadsUpSession(RuleBasedStateMachine):
    """A heads-up session as a state machine: hands one after another with the stacks they leave
    (so the depth drifts from the solved ones), the other seat a random player (any raise size),
    svaras dealt now and then. Invariants: whenever hard is to act in a dark round or a betting
    round, its spot is in a solved game of the right kind (but past a dark chain longer than the
    solved depth's) and its move is legal; chips are only moved, never made."""

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)
        self.hand: Hand | None = None
        self.total = 0
        self.dealer = 0

    @initialize(
        stake=st.sampled_from([1, 10, 50]), stacks=st.tuples(st.integers(2, 120), st.integers(2, 120))
    )
    def sit_down(self, stake: int, stacks: tuple[int, int]) -> None:
        self.stake, self.chips = stake, [s * stake for s in stacks]
        self.total = sum(self.chips)

    @precondition(lambda self: self.hand is None or self.hand.finished)
    @rule(ties=st.integers(0, 1), dark_play=st.booleans(), seed=st.integers(0, 2**16))
    def deal(self, ties: int, dark_play: bool, seed: int) -> None:
        if self.hand is not None:
            self.chips = list(self.hand.chips)
            self.dealer = 1 - self.dealer
        if min(self.chips) < 2 * self.stake:  # a new game, as practice offers
            self.chips = [self.total // 2, self.total - self.total // 2]
        self.rng = random.Random(seed)
        self.hand = start(
            stake=self.stake, chips=self.chips, dealer=self.dealer, dark_play=dark_play, ties=ties
        )

    @precondition(lambda self: self.hand is not None and not self.hand.finished)
    @rule()
    def move(self) -> None:
        hand = self.hand
        assert hand is not None
        legal = hand.legal()
        assert legal is not None
        view = bot_view(hand, legal.seat)
        if legal.seat == 1:  # the computer's seat
            spot = solved.locate(view, solved.games())
            if spot is None:
                assert hand.dark_bets >= 5, (hand.actions, self.chips)
            else:
                assert spot.game.kind == ("replay" if hand.svaras else "deal")
            verb, amount = decide(view, level="hard", rng=self.rng)
            assert hand.refusal(legal.seat, verb, amount) is None
        else:
            verb, amount = random_player(view, self.rng)
        hand.act(legal.seat, verb, amount)

    @invariant()
    def chips_are_only_moved(self) -> None:
        if self.hand is not None:
            assert sum(self.hand.chips) + self.hand.pot * (not self.hand.finished) == self.total


HeadsUpSession.TestCase.settings = settings(
    max_examples=25, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_heads_up_session = HeadsUpSession.TestCase
