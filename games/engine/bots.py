"""The computer's play: decisions for a seat from what that seat may see.

    view = bot_view(hand, seat)                      # built from hand.view_for(seat) + hand.legal()
    verb, amount = decide(view, level="hard", rng=random.Random())
    hand.act(seat, verb, amount)

``decide`` always returns a move the engine accepts, in every phase: ``dark``/``decline`` in the
dark round, ``fold``/``call``/``raise`` (amount within the range) in the betting, ``join``/``skip``
in a svara join window. It never sees other players' hidden cards: ``bot_view`` copies only the
seat's view (own cards, chips, bets, pot, public moves) and the legal moves.

Exact odds
----------
``exact_odds(cards)`` counts how the hand fares against every hand of three of the 29 cards the
seat cannot see (C(29,3) = 3,654 hands). It does not loop over them: the points histogram of the
hands disjoint from ``{a, b, c}`` is, by inclusion-exclusion, the histogram of all 4,960 hands minus
the hands holding a, b or c, plus those holding two of them, minus the hand itself. The histograms
per card (465 hands) and per pair (30 hands) are built once, lazily, in a few milliseconds; each own
hand's histogram (24 point values) is then cached. Wins, ties and losses are sums over it.

Strategies
----------
All levels share the legality layer (``_legal_move`` clamps every choice to what ``Legal``
allows) and differ in how they choose.

Hard -- plays from exact odds:

* *Equity.* Against each opponent still in, it weights the 3,654 possible hands with a range
  model read from public chips only. An opponent who has put nothing in after seeing the cards
  (antes and dark bets are blind) holds any hand. One who has called or raised voluntarily, v
  chips against a pot P0 at the deal, holds the top ``1 - q`` of hands by points with
  ``q = RANGE_BASE + RANGE_SLOPE * log2(1 + v / P0)`` (at most ``RANGE_MAX``), mixed with a share of
  any hand for bluffs and loose play: ``RANGE_FLOOR``, plus up to ``RANGE_BLUFF`` more when the
  bet faced is an overbet (b into P beyond ``OVERBET`` pots; a balanced bettor bluffs b / (P + 2b)
  of the time, near half for a shove). So a pot-size raise reads strong and a shove reads
  polarised. Several opponents are treated as independent: P(win) = prod(win_j), P(no loss) =
  prod(win_j + tie_j); a tie (svara) is worth half the pot, the replay being about a fair re-deal.
  Exact for one opponent; for more, the card removal between opponents is ignored.
* *Pot odds.* It calls when the equity beats the price ``to_call / (pot + to_call)`` plus
  ``CALL_MARGIN``, plus ``COMMIT_MARGIN`` times the share of its stack the call commits unless the
  call closes the betting or puts it all in (then no later bet can follow).
* *Value raises* when the equity clears ``VALUE_EQUITY`` (higher with fewer opponents); a share
  ``SLOWPLAY`` of those hands just calls, so a call does not cap its range.
* *Bluffs at a fixed, measured rate*, heads-up only: a hand that would fold raises instead with
  probability ``BLUFF_RATE`` = 3% when facing a bet, and a hand that would pass (which forfeits
  the ante) opens anyway with probability ``OPEN_BLUFF_RATE`` = 30% (a test measures it).
* *Sizes that do not tell*: every raise, value or bluff, draws its size from the same
  distribution ``SIZES`` (0.75, 1.5, 2.5 or 4 times the pot after calling), rounded to the stake
  and clamped to the raise range; when what would be left behind is under ``SHOVE_RATIO`` pots it
  raises to the cap.
* *The cap* bounds every raise and sets the all-in; *position*: the seat that would have to open
  first without a dark bet (heads-up, the non-dealer) bets dark, which hands the first decision
  to the other side, and a call that closes the betting needs a smaller margin; *the stake* is the
  unit of sizes and of the dark-bet scaling.
* *Dark bets* are a mixed decision: with probability ``DARK_FIRST`` as the first dark bettor and
  ``DARK_AGAIN`` for a later one, scaled down by ``1 - 8 x amount / stack`` (no dark bet worth more
  than an eighth of the stack). A dark bet costs S blind but makes the next player act first,
  facing twice the bet with no information about the dark bettor's cards.
* *Svara join* by expected value: the replay is a re-deal among the tied and the joiners, so a
  joiner's share is about (pot + its fee) / players; it joins when that share minus the fee, plus a
  small skill edge (``JOIN_EDGE`` stakes), is positive, and the fee is at most a fifth of its chips.
  (With two tied and nobody else joined that is (3 fee) / 3 - fee = 0 before the edge: it joins;
  with three tied it does not.)

The constants were tuned with ``python -m bench.bots`` (duplicate heads-up against the
baselines there and against normal); docs/bots.md has the figures.

Hard plays this heuristic only where no solved game applies: heads-up deals and svara replays
(the practice table) are played from the solved strategy of ``games/engine/solved.py``, written by
``python -m bench.solver`` (docs/bots.md).

Normal -- "Aunt Stoyanka", tight-aggressive on purpose: thresholds on its own points only (no
odds, no opponent model, no bluffs): opens with a pot-size raise from 20 points and folds the
rest, calls from 21 (23 against a bet larger than the pot), re-raises the pot from 25; bets dark
at a fixed 25% as the first bettor; joins a svara when two are tied and the fee is at most a tenth
of its chips. Its raises always mean strength: the lesson is to steal the pots it gives up.

Easy -- "Uncle Pesho", loose-passive on purpose: a calling station. Opens the minimum with 11 or
more, calls with 15 or more or whenever the call is cheap (at most half the pot), raises the
minimum only with 30 or more; never bets dark; joins a svara whenever the fee is at most a third
of its chips. The lesson: bet your good hands for value, never bluff it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from games.engine import solved
from games.engine.cards import DECK, Card
from games.engine.rules import RULES_V1, Rules
from games.engine.scoring import ALL_HANDS, score_cards

LEVELS: tuple[str, ...] = ("easy", "normal", "hard")
Move = tuple[str, int | None]

# ---------------------------------------------------------------------- tunables (hard)
SIZES: tuple[float, ...] = (0.75, 1.5, 2.5, 4.0)  # raise size / pot after calling, value and bluff alike
BLUFF_RATE = 0.03  # heads-up, facing a bet: share of would-be folds that raise instead
OPEN_BLUFF_RATE = 0.30  # heads-up, nothing to call: share of would-be passes that open instead
SLOWPLAY = 0.05  # share of value hands that just call a bet
# Opponent range (see the module docstring): top 1 - q, q = BASE + SLOPE * log2(1 + v / P0) <= MAX,
# mixed with a share FLOOR + BLUFF * overbet of any hand, overbet = max(0, f - OVERBET) / (f + OVERBET)
# for a bet f times the pot before it.
RANGE_BASE, RANGE_SLOPE, RANGE_MAX = 0.40, 0.25, 0.93
RANGE_FLOOR, RANGE_BLUFF, OVERBET = 0.08, 0.9, 0.5
VALUE_EQUITY = (0.70, 0.62, 0.55)  # raise threshold against 1, 2, 3+ opponents
OPEN_EQUITY = (0.50, 0.45, 0.40)  # open (T = 0) threshold against 1, 2, 3+ opponents
CALL_MARGIN = 0.04  # equity needed above the price, plus COMMIT_MARGIN * share of stack committed
COMMIT_MARGIN = 0.10
SHOVE_RATIO = 1.5  # move all in when the stack behind is below this times the pot
DARK_FIRST, DARK_AGAIN = 0.90, 0.30
JOIN_EDGE = 0.5  # stakes of skill edge the hard bot credits itself in a replay
# Normal (tight-aggressive): opens with a pot-size raise from NORMAL_OPEN points, calls from
# NORMAL_CALL (NORMAL_CALL_BIG against a bet bigger than the pot), re-raises the pot from NORMAL_RAISE.
NORMAL_OPEN, NORMAL_CALL, NORMAL_CALL_BIG, NORMAL_RAISE = 20, 21, 23, 25


@dataclass(frozen=True, slots=True)
class BotView:
    """What one seat may know when it must act: its view plus its legal moves."""

    seat: int
    phase: str
    stake: int
    dealer: int
    pot: int
    target: int
    cap: int | None
    cards: tuple[Card, ...]
    points: int | None
    chips: tuple[int, ...]
    bets: tuple[int, ...]
    in_hand: tuple[bool, ...]
    dark: tuple[int, ...]  # blind chips each seat put in during this deal's dark round
    svaras: int
    tied: tuple[int, ...]
    verbs: tuple[str, ...]
    raise_range: tuple[int, int] | None
    dark_amount: int | None
    join_fee: int | None
    to_call: int
    # The public moves of the hand so far, [seat, verb] or [seat, verb, amount] (the solved play
    # reads the history from them).
    actions: tuple[tuple[Any, ...], ...] = ()
    rules: Rules = RULES_V1  # the solved strategy is for the rules it was solved under

    @property
    def opponents(self) -> tuple[int, ...]:
        return tuple(s for s, inn in enumerate(self.in_hand) if inn and s != self.seat)


def bot_view(hand: Any, seat: int) -> BotView:
    """The view of ``seat``, which must be the seat to act, from ``view_for`` and ``legal`` only."""
    legal = hand.legal()
    if legal is None or legal.seat != seat:
        raise ValueError(f"seat {seat} is not the one to act")
    view = hand.view_for(seat)
    players = view["players"]
    own = players[seat]["cards"] or []
    return BotView(
        seat=seat,
        phase=view["phase"],
        stake=view["stake"],
        dealer=view["dealer"],
        pot=view["pot"],
        target=view["target"],
        cap=view["cap"],
        cards=tuple(own),
        points=view["own_points"],
        chips=tuple(p["chips"] for p in players),
        bets=tuple(p["bet"] for p in players),
        in_hand=tuple(p["in_hand"] for p in players),
        dark=_dark_bets(
            view["actions"], stake=view["stake"], seats=len(players), svaras=view["svaras"], rules=hand.rules
        ),
        svaras=view["svaras"],
        tied=tuple(view["tied"]),
        verbs=tuple(legal.verbs),
        raise_range=legal.raise_range,
        dark_amount=legal.dark_amount,
        join_fee=legal.join_fee,
        to_call=legal.to_call,
        actions=tuple(tuple(a) for a in view["actions"]),
        rules=hand.rules,
    )


def _dark_bets(
    actions: Sequence[Sequence[Any]], *, stake: int, seats: int, svaras: int, rules: Rules
) -> tuple[int, ...]:
    # The dark round opens the hand, so its moves lead the action list; the k-th dark bet is the
    # rules' chain's k-th link (S * 2^k under RULES_V1).
    # A replay has no dark round: the blind money then belongs to an earlier deal.
    dark = [0] * seats
    if svaras:
        return tuple(dark)
    for count, action in enumerate(actions):
        if action[1] != "dark":
            break
        dark[action[0]] += rules.dark_bet(stake=stake, count=count)
    return tuple(dark)


# ---------------------------------------------------------------------- exact odds

POINT_VALUES: tuple[int, ...] = tuple(sorted({score_cards(h) for h in ALL_HANDS}))
_INDEX = {v: i for i, v in enumerate(POINT_VALUES)}
UNSEEN_HANDS = math.comb(len(DECK) - 3, 3)  # 3,654


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact counts against every hand of the unseen cards, and their probabilities."""

    win: int
    tie: int
    lose: int

    @property
    def total(self) -> int:
        return self.win + self.tie + self.lose

    @property
    def p_win(self) -> float:
        return self.win / self.total

    @property
    def p_tie(self) -> float:
        return self.tie / self.total

    @property
    def p_lose(self) -> float:
        return self.lose / self.total


class _Tables:
    """Histograms of hand points: all hands, hands holding a card, hands holding a pair."""

    def __init__(self) -> None:
        width = len(POINT_VALUES)
        self.total = [0] * width
        self.by_card = [[0] * width for _ in DECK]
        self.by_pair: dict[tuple[int, int], list[int]] = {p: [0] * width for p in combinations(DECK, 2)}
        for hand in ALL_HANDS:
            i = _INDEX[score_cards(hand)]
            self.total[i] += 1
            a, b, c = hand  # ALL_HANDS are sorted, as the pair keys are
            for card in hand:
                self.by_card[card][i] += 1
            for pair in ((a, b), (a, c), (b, c)):
                self.by_pair[pair][i] += 1
        self.cache: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def unseen(self, cards: tuple[int, int, int]) -> tuple[int, ...]:
        hist = self.cache.get(cards)
        if hist is None:
            a, b, c = cards
            by_card, by_pair = self.by_card, self.by_pair
            ab, ac, bc = by_pair[(a, b)], by_pair[(a, c)], by_pair[(b, c)]
            ca, cb, cc = by_card[a], by_card[b], by_card[c]
            out = [
                t - x - y - z + p + q + r for t, x, y, z, p, q, r in zip(self.total, ca, cb, cc, ab, ac, bc)
            ]
            out[_INDEX[score_cards(cards)]] -= 1  # the hand itself
            hist = self.cache[cards] = tuple(out)
        return hist


_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def unseen_histogram(cards: Sequence[Card]) -> tuple[int, ...]:
    """How many hands of the 29 unseen cards score each of ``POINT_VALUES`` (sums to 3,654)."""
    key = tuple(sorted(cards))
    if len(key) != 3 or len(set(key)) != 3:
        raise ValueError("a hand is exactly three different cards")
    return _get_tables().unseen(key)


def exact_odds(cards: Sequence[Card]) -> Odds:
    """Wins, ties and losses of ``cards`` against all C(29,3) hands of the cards it cannot see."""
    hist = unseen_histogram(cards)
    i = _INDEX[score_cards(cards)]
    return Odds(win=sum(hist[:i]), tie=hist[i], lose=sum(hist[i + 1 :]))


def _range_weights(hist: Sequence[int], *, q: float, bluffs: float) -> list[float]:
    """Weights per point value for an opponent range: the top ``1 - q`` of the unseen hands,
    mixed with a share ``bluffs`` of any hand at all (bluffs and loose play)."""
    if q <= 0:
        return [1.0] * len(hist)
    keep = (1 - q) * sum(hist)  # hands taken from the top
    weights = [bluffs] * len(hist)
    for i in range(len(hist) - 1, -1, -1):
        if keep <= 0 or hist[i] == 0:
            continue
        share = min(1.0, keep / hist[i])
        weights[i] += (1 - bluffs) * share / (1 - q)
        keep -= hist[i]
    return weights


def _odds_against(hist: Sequence[int], mine: int, weights: Sequence[float]) -> tuple[float, float]:
    """(P(win), P(tie)) against one opponent whose hand is drawn with ``weights``."""
    weighted = [h * w for h, w in zip(hist, weights)]
    total = sum(weighted)
    return sum(weighted[:mine]) / total, weighted[mine] / total


# ---------------------------------------------------------------------- entry point


def decide(view: BotView, *, level: str, rng: random.Random) -> Move:
    """The move of ``level`` for the seat of ``view``; always one the engine accepts."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: use one of {', '.join(LEVELS)}")
    if level == "hard":
        # Heads-up deals and svara replays: the solved strategy (games/engine/solved.py);
        # elsewhere (several opponents, a join decision, other rules) the heuristic.
        solved_move = solved.move(view, rng)
        if solved_move is not None:
            return _legal_move(view, solved_move) if view.phase == "betting" else solved_move
    return heuristic(view, level=level, rng=rng)


def heuristic(view: BotView, *, level: str, rng: random.Random) -> Move:
    """The level's rules of thumb (for hard: where no solved game applies)."""
    if view.phase == "dark":
        wants = _dark_choice(view, level=level, rng=rng)
        return ("dark", view.dark_amount) if wants else ("decline", None)
    if view.phase == "join":
        return ("join", None) if _join_choice(view, level=level) else ("skip", None)
    if level == "hard":
        move = _hard_bet(view, rng=rng)
    elif level == "normal":
        move = _normal_bet(view)
    else:
        move = _easy_bet(view)
    return _legal_move(view, move)


def _legal_move(view: BotView, move: Move) -> Move:
    """Clamp a betting choice to what the engine allows (the raise range, call only when T > 0)."""
    verb, amount = move
    if verb == "raise":
        if view.raise_range is None:
            verb, amount = ("call", None) if "call" in view.verbs else ("fold", None)
        else:
            low, high = view.raise_range
            return "raise", min(max(int(amount or low), low), high)
    if verb == "call" and "call" not in view.verbs:
        return "fold", None
    return verb, None


# ---------------------------------------------------------------------- dark and join


def _dark_choice(view: BotView, *, level: str, rng: random.Random) -> bool:
    amount = view.dark_amount or view.stake
    if level == "easy":
        return False
    first = not any(view.dark)
    if level == "normal":
        return first and rng.random() < 0.25
    # Hard: scale the mixed frequency down as the dark bet becomes a real part of the stack.
    stack = view.chips[view.seat]
    weight = max(0.0, 1.0 - 8 * amount / max(stack, 1))
    return rng.random() < (DARK_FIRST if first else DARK_AGAIN) * weight


def _join_choice(view: BotView, *, level: str) -> bool:
    fee = view.join_fee or 0
    chips = view.chips[view.seat]
    tied = len(view.tied)
    if level == "easy":
        return 3 * fee <= chips
    if level == "normal":
        return tied == 2 and 10 * fee <= chips
    players = tied + _joined(pot=view.pot, fee=fee) + 1
    share = (view.pot + fee) / players  # the replay is a re-deal: about an even share of its pot
    return share - fee + JOIN_EDGE * view.stake > 0 and 5 * fee <= chips


def _joined(*, pot: int, fee: int) -> int:
    """How many have joined so far: the pot at the tie was 2 * fee or 2 * fee - 1 (fee = half,
    rounded up), and each joiner added one fee."""
    if fee <= 0:
        return 0
    for before in (2 * fee, 2 * fee - 1):
        if (pot - before) % fee == 0 and pot >= before:
            return (pot - before) // fee
    return 0


# ---------------------------------------------------------------------- hard


def _hard_bet(view: BotView, *, rng: random.Random) -> Move:
    opponents = view.opponents
    k = len(opponents)
    equity = _equity(view, opponents)
    pot, to_call = view.pot, view.to_call
    can_raise = view.raise_range is not None
    idx = min(k, 3) - 1
    if to_call == 0:  # T = 0: open or pass (which folds)
        if equity >= OPEN_EQUITY[idx] and can_raise:
            return "raise", _raise_size(view, rng=rng)
        if k == 1 and can_raise and rng.random() < OPEN_BLUFF_RATE:
            return "raise", _raise_size(view, rng=rng)
        return "fold", None
    stack = view.chips[view.seat]
    price = to_call / (pot + to_call)
    # Calling all in, or closing the betting, leaves nothing more to lose after this price.
    closes = to_call >= stack or _call_closes(view)
    needed = price + CALL_MARGIN + (0.0 if closes else COMMIT_MARGIN * to_call / max(stack, 1))
    if equity >= VALUE_EQUITY[idx] and can_raise and rng.random() >= SLOWPLAY:
        return "raise", _raise_size(view, rng=rng)
    if equity >= needed:
        return "call", None
    if k == 1 and can_raise and rng.random() < BLUFF_RATE:
        return "raise", _raise_size(view, rng=rng)
    return "fold", None


def _call_closes(view: BotView) -> bool:
    """Whether a call ends the betting: every other hand still in has already matched the target."""
    return all(view.bets[s] == view.target for s in view.opponents)


def _raise_size(view: BotView, *, rng: random.Random) -> int:
    """A raise target drawn from ``SIZES`` whatever the hand, so the size tells nothing."""
    assert view.raise_range is not None
    low, high = view.raise_range
    pot_after_call = view.pot + view.to_call
    behind = high - view.target  # what a call would still leave to bet, at most
    if behind < SHOVE_RATIO * pot_after_call:
        return high
    step = view.stake
    extra = rng.choice(SIZES) * pot_after_call
    amount = view.target + max(step, round(extra / step) * step)
    return min(max(amount, low), high)


def _equity(view: BotView, opponents: Sequence[int]) -> float:
    """Share of the pot the hand is worth against the modeled ranges of ``opponents``."""
    hist = unseen_histogram(view.cards)
    mine = _INDEX[score_cards(view.cards)]
    pot0 = max(view.pot - sum(b - d for b, d in zip(view.bets, view.dark)), 1)
    # The bet now faced, against the pot before it: more than about twice the pot is an overbet.
    facing = view.to_call / max(view.pot - view.to_call, 1)
    over = max(0.0, facing - OVERBET) / (facing + OVERBET)
    p_win = p_no_loss = 1.0
    for seat in opponents:
        voluntary = view.bets[seat] - view.dark[seat]
        q = bluffs = 0.0
        if voluntary > 0:
            ratio = voluntary / pot0
            q = min(RANGE_MAX, RANGE_BASE + RANGE_SLOPE * math.log2(1 + ratio))
            # Bets up to about twice the pot read as strength; beyond that, bluffs weigh more and more
            # (a balanced bettor of b into P bluffs b / (P + 2b) of the time, near half for a shove).
            bluffs = RANGE_FLOOR + RANGE_BLUFF * over
        win, tie = _odds_against(hist, mine, _range_weights(hist, q=q, bluffs=bluffs))
        p_win *= win
        p_no_loss *= win + tie
    # A svara replays the pot among the tied: about an even share of it (two tied, the usual case).
    return p_win + (p_no_loss - p_win) / 2


# ---------------------------------------------------------------------- normal and easy


def _normal_bet(view: BotView) -> Move:
    # Tight-aggressive: few hands, and those it plays it raises with.
    points = view.points or 0
    pot_raise = view.target + max(view.stake, view.pot + view.to_call)
    if view.to_call == 0:
        return ("raise", pot_raise) if points >= NORMAL_OPEN else ("fold", None)
    if points >= NORMAL_RAISE:
        return "raise", pot_raise
    need = NORMAL_CALL_BIG if view.to_call > view.pot else NORMAL_CALL
    return ("call", None) if points >= need else ("fold", None)


def _easy_bet(view: BotView) -> Move:
    points = view.points or 0
    if points >= 30:
        return "raise", view.target + view.stake
    if view.to_call == 0:
        return ("raise", view.target + view.stake) if points >= 11 else ("fold", None)
    cheap = 2 * view.to_call <= view.pot
    return ("call", None) if points >= 15 or cheap else ("fold", None)
