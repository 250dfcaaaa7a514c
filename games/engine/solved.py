"""The solved heads-up strategy the hard level plays: a table lookup in pure Python.

``bench/solver.py`` solves heads-up Svara with CFR+ in an abstraction and writes
``strategies/hard.json.gz``: several solved games, each with a root state (the stack behind and the
pot at the start of a deal, in stakes), a tree of public histories and, at each decision, the
probability (per mille) of each abstract move for each of the 24 point values (one row for a dark
decision, which comes before the cards).

* *The deal*: solved for a few stack depths (the deal starts with the antes in, 2 stakes); a real
  hand uses the depth nearest its effective stack (the smaller one: the cap makes the bigger stack's
  extra chips unplayable), on a log scale.
* *A svara replay*: heads-up, both hands tied, nobody can join (RULES.md: only players outside the
  tie join), so the replay is a new deal of the same two with the pot carried and no dark round;
  solved for a grid of (stack behind, pot) and picked by the nearest on a log scale of both.
* *Any raise size*: a person's raise is translated to the nearest abstract size of that decision
  (log scale of the raise target) and the strategy continues from there; its own raises are the
  abstract sizes computed in the real state (so the amounts are always legal).

The history is read only from the seat's view: the public moves are replayed on a hand started
with the chips each seat had at the deal (its chips, plus its bets, plus its half of the rest of
the pot) and decks that tie, so earlier deals end in a svara exactly where the real ones did.
``move`` returns None where no solved game applies (more than two seats, a join decision, a
history the replay cannot follow): the caller then plays its heuristic.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from games.engine.cards import DECK, Card
from games.engine.hand import BETTING, DARK, TIMEOUT_MEANS, Hand, IllegalAction
from games.engine.rules import RULES_V1
from games.engine.scoring import ALL_HANDS, score_cards

if TYPE_CHECKING:
    from games.engine.bots import BotView

STRATEGY_FILE = Path(__file__).resolve().parent / "strategies" / "hard.json.gz"
POINT_VALUES: tuple[int, ...] = tuple(sorted({score_cards(h) for h in ALL_HANDS}))
INDEX = {v: i for i, v in enumerate(POINT_VALUES)}
Move = tuple[str, int | None]
# Two hands of equal points (8 9 10 of clubs, of diamonds), dealt alternately: every showdown of
# the replayed hand is a svara, as it was in the real hand whenever the real one reached the next deal.
_TIE_CARDS: tuple[Card, ...] = (1, 9, 2, 10, 3, 11)
TIE_DECK: tuple[Card, ...] = _TIE_CARDS + tuple(c for c in DECK if c not in _TIE_CARDS)


def abstract_raises(
    *,
    stake: int,
    target: int,
    pot: int,
    to_call: int,
    low: int,
    high: int,
    raises: int,
    pot_sizes: Sequence[tuple[str, float]],
    max_raises: int,
    distinct: bool = True,
) -> dict[str, int]:
    """The abstract raise targets of a betting decision by label: the minimum, the pot sizes (times
    the pot after calling, rounded to the stake) and the cap; only the cap after ``max_raises``
    raises in the deal. Distinct amounts only, the cap keeping its name when a size reaches it."""
    if raises >= max_raises:
        return {"max": high}

    def sized(times: float) -> int:
        extra = times * (pot + to_call)
        return min(max(target + max(stake, round(extra / stake) * stake), low), high)

    amounts = {"max": high, **{label: sized(times) for label, times in reversed(pot_sizes)}, "min": low}
    if not distinct:
        return amounts
    out: dict[str, int] = {}
    for label, amount in amounts.items():
        if amount not in out.values():
            out[label] = amount
    return out


def nearest(sizes: dict[str, int], amount: int) -> str:
    """The label whose amount is nearest ``amount`` on a log scale (a raise to 60 is as far from
    30 as from 120)."""
    return min(sizes, key=lambda label: abs(math.log(sizes[label]) - math.log(max(amount, 1))))


@dataclass(frozen=True, slots=True)
class Node:
    seat: int  # relative to the dealer: 0 deals, 1 acts first
    actions: tuple[tuple[str, str], ...]  # (verb, size label or "")
    rows: Sequence[Sequence[int]]  # per point value (one row for a dark decision), per mille


@dataclass(frozen=True, slots=True)
class Game:
    kind: str  # "deal" or "replay"
    stack: float  # each seat's chips behind at the root, in stakes
    pot: float  # the pot at the root, in stakes
    pot_sizes: tuple[tuple[str, float], ...]
    max_raises: int
    nodes: dict[str, Node]

    def distance(self, *, stack: float, pot: float) -> float:
        return abs(math.log(stack / self.stack)) + abs(math.log(pot / self.pot))


def parse(data: dict[str, Any]) -> list[Game]:
    games = []
    labels: dict[str, tuple[str, str]] = {}  # "raise:pot" -> ("raise", "pot"), split once
    for g in data["games"]:
        nodes = {}
        for key, (seat, actions, rows) in g["nodes"].items():
            moves = tuple(labels.get(a) or labels.setdefault(a, _split(a)) for a in actions)
            nodes[key] = Node(seat=int(seat), actions=moves, rows=rows)
        games.append(
            Game(
                kind=g["kind"],
                stack=float(g["stack"]),
                pot=float(g["pot"]),
                pot_sizes=tuple((label, float(times)) for label, times in g["pot_sizes"]),
                max_raises=int(g["max_raises"]),
                nodes=nodes,
            )
        )
    return games


def _split(action: str) -> tuple[str, str]:
    verb, _, label = action.partition(":")
    return verb, label


_games: list[Game] | None = None


def games() -> list[Game]:
    """The shipped solved games, read once."""
    global _games
    if _games is None:
        _games = parse(json.loads(gzip.decompress(STRATEGY_FILE.read_bytes())))
    return _games


def step(seat: int, verb: str, label: str) -> str:
    return f"{seat}:{verb}:{label}"


def child(key: str, seat: int, verb: str, label: str) -> str:
    return f"{key}|{step(seat, verb, label)}" if key else step(seat, verb, label)


def _sizes(hand: Hand, game: Game, raises: int, *, distinct: bool = True) -> dict[str, int]:
    legal = hand.legal()
    if legal is None or legal.raise_range is None:
        return {}
    low, high = legal.raise_range
    return abstract_raises(
        stake=hand.stake,
        target=hand.target,
        pot=hand.pot,
        to_call=legal.to_call,
        low=low,
        high=high,
        raises=raises,
        pot_sizes=game.pot_sizes,
        max_raises=game.max_raises,
        distinct=distinct,
    )


def _pick(found: Sequence[Game], hand: Hand) -> tuple[Game | None, str]:
    """The solved game nearest the state at the start of the current deal, and the key of its
    root: a deal without a dark round (dark play off, or stacks too short for a dark bet) starts
    where the solved deal's non-dealer has declined, the same spot (pot 2 S, nothing to call)."""
    kind = "replay" if hand.svaras else "deal"
    stack = min(c + b for c, b, inn in zip(hand.chips, hand.bets, hand.in_hand) if inn) / hand.stake
    pot = (hand.pot - sum(hand.bets)) / hand.stake
    fitting = [g for g in found if g.kind == kind]
    if not fitting or stack <= 0 or pot <= 0:
        return None, ""
    game = min(fitting, key=lambda g: g.distance(stack=stack, pot=pot))
    skipped = kind == "deal" and hand.phase == BETTING
    return game, step(1, "decline", "") if skipped else ""


@dataclass(frozen=True, slots=True)
class Spot:
    """Where the seat to act is: the solved game, its node, the replayed hand, raises in the deal."""

    game: Game
    node: Node
    hand: Hand
    raises: int


def locate(view: BotView, found: Sequence[Game]) -> Spot | None:
    """The seat's spot in the nearest solved game; None where no solved game applies. Remembered
    for the last few public states (the cards play no part in it: a spot serves every hand)."""
    public = (view.seat, view.stake, view.dealer, view.phase, view.pot, view.svaras, view.chips, view.bets)
    memo: tuple[Any, ...] = (id(found), view.rules.version, *public, view.actions)
    cached = _spots.get(memo, _MISSING)
    if cached is _MISSING:
        cached = _locate(view, found)
        if len(_spots) >= 4096:
            _spots.clear()
        _spots[memo] = cached
    return cached  # type: ignore[return-value]


_MISSING = object()
_spots: dict[tuple[Any, ...], object] = {}


def _locate(view: BotView, found: Sequence[Game]) -> Spot | None:
    if view.rules is not RULES_V1 or len(view.chips) != 2 or view.phase not in ("dark", "betting"):
        return None
    rest = view.pot - sum(view.bets)  # antes and earlier deals: the two put in the same
    start = [c + b + rest // 2 for c, b in zip(view.chips, view.bets)]
    actions = view.actions
    dark_play = view.phase == "dark" or (bool(actions) and actions[0][1] in ("dark", "decline", "timeout"))
    try:
        hand = Hand.start(
            stake=view.stake,
            names=["a", "b"],
            chips=start,
            dealer=view.dealer,
            dark_play=dark_play,
            decks=[TIE_DECK] * (view.svaras + 1),
        )
        game: Game | None = None
        key, raises = "", 0  # the key is set when the game is picked
        for action in actions:
            if game is None and hand.svaras == view.svaras:
                game, key = _pick(found, hand)
                if game is None:
                    return None
            seat, verb = int(action[0]), str(action[1])
            amount = int(action[2]) if len(action) > 2 and action[2] is not None else None
            if game is not None:
                key = _settle(game, key, hand)
                node = game.nodes.get(key)
                if node is None:
                    return None
                key, raises = _follow(hand, game, node, key, raises, seat, verb, amount)
            hand.act(seat, verb, amount)
        if game is None:
            game, key = _pick(found, hand)
    except (IllegalAction, ValueError):
        return None
    if game is None:
        return None
    key = _settle(game, key, hand)
    legal = hand.legal()
    if legal is None or legal.seat != view.seat or hand.pot != view.pot:
        return None
    node = game.nodes.get(key)
    if node is None or node.seat != (view.seat - view.dealer) % 2 or _is_dark(node) != (hand.phase == DARK):
        return None
    return Spot(game=game, node=node, hand=hand, raises=raises)


def _is_dark(node: Node) -> bool:
    return node.actions[0][0] in ("dark", "decline")


def _settle(game: Game, key: str, hand: Hand) -> str:
    """Past the solved dark round's end when the real one has ended: shorter stacks than the
    solved depth end the dark chain sooner, which is the next seat declining (the betting then
    opens the same way: twice the last dark bet, left of the last dark bettor)."""
    node = game.nodes.get(key)
    while node is not None and hand.phase == BETTING and _is_dark(node):
        key = child(key, node.seat, "decline", "")
        node = game.nodes.get(key)
    return key


def _follow(
    hand: Hand, game: Game, node: Node, key: str, raises: int, seat: int, verb: str, amount: int | None
) -> tuple[str, int]:
    """The tree key after a real move (a raise translated to the nearest abstract size)."""
    if verb == "timeout":
        verb = TIMEOUT_MEANS[hand.phase]
    elif verb == "pass":
        verb = "fold"
    label = ""
    if verb == "raise":
        real = _sizes(hand, game, raises)
        labels = [lab for v, lab in node.actions if v == "raise"]
        known = {lab: real[lab] for lab in labels if lab in real} or real
        label = nearest(known, amount or 0)
        raises += 1
    return child(key, (seat - hand.dealer) % 2, verb, label), raises


def move(view: BotView, rng: random.Random, found: Sequence[Game] | None = None) -> Move | None:
    """The solved strategy's move for the seat of ``view``, or None where it does not apply."""
    found = games() if found is None else found
    spot = locate(view, found)
    if spot is None:
        return None
    node = spot.node
    row = node.rows[0] if view.phase == "dark" else node.rows[INDEX[view.points or 0]]
    verb, label = rng.choices(node.actions, weights=row)[0]
    if verb == "dark":
        return "dark", view.dark_amount
    if verb == "raise":
        # Every label's amount, even one that coincides with another here (a deeper solved stack).
        real = _sizes(spot.hand, spot.game, spot.raises, distinct=False)
        if real:
            return "raise", real.get(label, real["max"])
        verb = "call"
    if verb == "call" and "call" not in view.verbs:
        return "fold", None
    return verb, None
