"""Best response against a level of the computer, computed in an abstraction and checked in the game.

    python -m bench.best_response --level hard --deals 10000 --samples 64 --seed 1   # the defaults

Practice setting: heads-up, stake 10, 500 chips each, dark play on, seat 0 deals.

1. *The bot's policy, read through its own interface.* A game tree of public histories is built by
   driving the real engine (``Hand.start`` / ``act``), so its rules (dark round, who acts, the cap,
   when betting ends) are the engine's. At every node where the bot acts, its view comes from
   ``bot_view`` on that engine state, with the bot's cards replaced by sampled hands of each point
   value (``--samples`` per value), and ``decide`` is called with several rng seeds: the tallies
   estimate the bot's action probabilities per point value. Nothing of the bot's code is copied.
2. *The abstraction.* The exploiter's hands are grouped by points (24 values); its raises are
   the minimum, half, one, two and four pots (after calling) and the cap, at most ``MAX_RAISES`` raises a deal
   (then only the cap). The bot's raises are mapped to the nearest of those sizes (log scale).
   A showdown tie (svara) counts 0: the replay is about a fair re-deal of the pot.
3. *The best response* by backward induction: where the exploiter bets it knows its points (the
   best action per point value); in the dark round it does not (one action for all). Card removal
   between the two hands is exact in the prior P(mine, theirs) of point values.
4. *The check.* The exploiter plays that strategy in the real engine against the real bot on
   duplicate deals (each deck twice, seats swapped), mapping the real history onto the tree (a bot
   raise to the nearest size; in a svara replay, or off the tree, it plays the hard level's move);
   reported: the exploiter's chips per hand with a 95 % interval over deal pairs.

Prints a table; writes bench/results/best_response_LEVEL.json (or ``--out``): the practice page
shows each level's figure from there.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.bots import CHIPS, STAKE, play_deal, server_seed, summary
from games.engine.bots import LEVELS, POINT_VALUES, BotView, Move, bot_view, decide, unseen_histogram
from games.engine.hand import Hand
from games.engine.scoring import ALL_HANDS, score_cards

RESULTS = Path(__file__).resolve().parent / "results"
# Raises by the pot after calling: half, one, two, four pots; besides the minimum and the cap.
POT_SIZES: tuple[tuple[str, float], ...] = (("half", 0.5), ("pot", 1.0), ("x2", 2.0), ("x4", 4.0))
LABELS = ("min", *(label for label, _ in POT_SIZES), "max")
MAX_RAISES = 4
CLASSES = len(POINT_VALUES)
INDEX = {v: i for i, v in enumerate(POINT_VALUES)}

Option = tuple[str, str]  # (verb, size label or "")
# A player read from what its seat sees: its view and the public moves of the hand so far.
Policy = Callable[[BotView, Sequence[Sequence[Any]], random.Random], Move]


def level_policy(level: str) -> Policy:
    def play(view: BotView, actions: Sequence[Sequence[Any]], rng: random.Random) -> Move:
        return decide(view, level=level, rng=rng)

    return play


Key = tuple[tuple[int, str, str], ...]  # the public history: (seat, verb, label) per move


# ---------------------------------------------------------------------- abstraction


def raise_sizes(
    *,
    target: int,
    pot: int,
    to_call: int,
    low: int,
    high: int,
    raises: int,
    pot_sizes: Sequence[tuple[str, float]] = (),
    max_raises: int = MAX_RAISES,
) -> dict[str, int]:
    """The abstract raise targets at a betting decision, by label (distinct amounts, the cap first)."""
    if raises >= max_raises:
        return {"max": high}
    pot_sizes = pot_sizes or POT_SIZES

    def sized(times: float) -> int:
        extra = times * (pot + to_call)
        return min(max(target + max(STAKE, round(extra / STAKE) * STAKE), low), high)

    amounts = {"max": high, **{label: sized(times) for label, times in reversed(pot_sizes)}, "min": low}
    out: dict[str, int] = {}
    for label, amount in amounts.items():  # the cap keeps its name when a size reaches it
        if amount not in out.values():
            out[label] = amount
    return out


def nearest(sizes: dict[str, int], amount: int) -> str:
    return min(sizes, key=lambda label: abs(math.log(sizes[label]) - math.log(amount)))


def raises_so_far(actions: Sequence[Sequence[Any]]) -> int:
    return sum(1 for a in actions if a[1] == "raise")


def sizes_for(
    view: BotView, actions: Sequence[Sequence[Any]], pot_sizes: Sequence[tuple[str, float]] = POT_SIZES
) -> dict[str, int]:
    if view.raise_range is None:
        return {}
    low, high = view.raise_range
    return raise_sizes(
        target=view.target,
        pot=view.pot,
        to_call=view.to_call,
        low=low,
        high=high,
        raises=raises_so_far(actions),
        pot_sizes=pot_sizes,
    )


def prior() -> list[list[float]]:
    """P(exploiter's points = i, bot's points = j) over all deals, card removal included."""
    joint = [[0.0] * CLASSES for _ in range(CLASSES)]
    for cards in ALL_HANDS:
        row = joint[INDEX[score_cards(cards)]]
        for j, count in enumerate(unseen_histogram(cards)):
            row[j] += count
    total = sum(map(sum, joint))
    return [[x / total for x in row] for row in joint]


def class_hands() -> list[list[tuple[int, ...]]]:
    by: list[list[tuple[int, ...]]] = [[] for _ in range(CLASSES)]
    for cards in ALL_HANDS:
        by[INDEX[score_cards(cards)]].append(tuple(cards))
    return by


# ---------------------------------------------------------------------- the tree


@dataclasses.dataclass
class Node:
    seat: int  # who acts
    phase: str
    options: dict[Option, Key | tuple[str, float]]  # option -> child key, or ("fold", net) / ("show", c)
    probs: dict[Option, list[float]] | None = None  # the bot's, per point value


def new_hand(nonce: int = 0) -> Hand:
    return Hand.start(
        stake=STAKE,
        names=["a", "b"],
        chips=[CHIPS, CHIPS],
        dealer=0,
        dark_play=True,
        seeds={"server_seed": server_seed("best-response-tree"), "client_seeds": ["bench"], "nonce": nonce},
    )


class Tree:
    """The public tree for the exploiter in seat ``me`` against ``level``, built on the engine."""

    def __init__(
        self,
        *,
        me: int,
        level: str,
        samples: int,
        seed: int,
        policy: Policy | None = None,
        pot_sizes: Sequence[tuple[str, float]] = POT_SIZES,
    ) -> None:
        self.me, self.level, self.samples, self.pot_sizes = me, level, samples, tuple(pot_sizes)
        self.policy = policy if policy is not None else level_policy(level)
        self.rng = random.Random(seed)
        self.hands = class_hands()
        self.nodes: dict[Key, Node] = {}
        self.decide_calls = 0
        self._build((), new_hand())

    def _build(self, key: Key, hand: Hand) -> None:
        legal = hand.legal()
        assert legal is not None and hand.svaras == 0
        seat = legal.seat
        view = bot_view(hand, seat)
        amounts = self._amounts(view, hand)
        if seat == self.me:
            wanted: list[Option] = list(amounts)
            probs = None
        else:
            probs = self._bot_probs(view, hand, amounts)
            wanted = list(probs)
        node = self.nodes[key] = Node(seat=seat, phase=view.phase, options={}, probs=probs)
        for option in wanted:
            child = Hand.from_json(hand.to_json())
            shows = len(child.showdowns)
            child.act(seat, option[0], amounts[option])
            if len(child.showdowns) > shows:
                node.options[option] = ("show", child.pot / 2)
            elif child.finished:
                node.options[option] = ("fold", float(child.chips[self.me] - CHIPS))
            else:
                child_key = (*key, (seat, *option))
                node.options[option] = child_key
                self._build(child_key, child)

    def _amounts(self, view: BotView, hand: Hand) -> dict[Option, int | None]:
        if view.phase == "dark":
            return {("dark", ""): view.dark_amount, ("decline", ""): None}
        out: dict[Option, int | None] = {("fold", ""): None}
        if "call" in view.verbs:
            out[("call", "")] = None
        for label, amount in sizes_for(view, hand.actions, self.pot_sizes).items():
            out[("raise", label)] = amount
        return out

    def _bot_probs(
        self, view: BotView, hand: Hand, amounts: dict[Option, int | None]
    ) -> dict[Option, list[float]]:
        sizes = {label: a for (verb, label), a in amounts.items() if verb == "raise" and a is not None}
        probs: dict[Option, list[float]] = {}
        # No cards yet in the dark round: one pool, sampled as much as all the point values together.
        hands = [[]] if view.phase == "dark" else self.hands
        draws = self.samples * (CLASSES if view.phase == "dark" else 1)
        for j, pool in enumerate(hands):
            tally: Counter[Option] = Counter()
            for _ in range(draws):
                seen = view
                if pool:
                    cards = pool[self.rng.randrange(len(pool))]
                    seen = dataclasses.replace(view, cards=cards, points=score_cards(cards))
                verb, amount = self.policy(seen, hand.actions, random.Random(self.rng.getrandbits(64)))
                self.decide_calls += 1
                tally[(verb, nearest(sizes, amount) if verb == "raise" and amount else "")] += 1
            for option, count in tally.items():
                probs.setdefault(option, [0.0] * CLASSES)[j] = count / draws
        if view.phase == "dark":  # the same for every hand: it has none yet
            probs = {o: [p[0]] * CLASSES for o, p in probs.items()}
        return probs


# ---------------------------------------------------------------------- best response


def solve(tree: Tree, joint: list[list[float]]) -> tuple[float, dict[Key, list[Option]]]:
    """The exploiter's best-response value (chips per hand, in the abstraction) and strategy:
    per node where it acts, the best option for each of its point values."""
    strategy: dict[Key, list[Option]] = {}
    signs = [[(pi > pj) - (pi < pj) for pj in POINT_VALUES] for pi in POINT_VALUES]

    def value(key: Key, reach: list[list[float]]) -> list[float]:
        node = tree.nodes[key]
        outcomes: dict[Option, list[float]] = {}
        for option, child in node.options.items():
            if node.probs is not None:  # the bot acts: its probability per point value j
                p = node.probs[option]
                sub = [[r * pj for r, pj in zip(row, p)] for row in reach]
            else:
                sub = reach
            if isinstance(child[0], str):
                kind, amount = child
                if kind == "fold":
                    outcomes[option] = [amount * sum(row) for row in sub]
                else:
                    outcomes[option] = [
                        amount * sum(r * s for r, s in zip(row, sg)) for row, sg in zip(sub, signs)
                    ]
            else:
                outcomes[option] = value(child, sub)
        if node.probs is not None:
            return [sum(v[i] for v in outcomes.values()) for i in range(CLASSES)]
        if node.phase == "dark":  # decided before the cards: one choice for every hand
            best = max(outcomes, key=lambda o: sum(outcomes[o]))
            strategy[key] = [best] * CLASSES
            return outcomes[best]
        choice = [max(outcomes, key=lambda o: outcomes[o][i]) for i in range(CLASSES)]
        strategy[key] = choice
        return [outcomes[choice[i]][i] for i in range(CLASSES)]

    return sum(value((), joint)), strategy


# ---------------------------------------------------------------------- the check in the real game


class Exploiter:
    """Plays the best-response strategy from what its seat sees (its view and the public moves)."""

    def __init__(self, tree: Tree, strategy: dict[Key, list[Option]]) -> None:
        self.tree, self.strategy = tree, strategy
        self.moves = self.off_tree = 0

    def move(self, hand: Hand, seat: int, rng: random.Random) -> Move:
        view = bot_view(hand, seat)
        self.moves += 1
        key = self._locate(hand, seat) if view.svaras == 0 and view.phase != "join" else None
        if key is None:
            if view.svaras == 0:
                self.off_tree += 1
            return decide(view, level="hard", rng=rng)
        verb, label = self.strategy[key][INDEX[view.points] if view.points is not None else 0]
        if verb == "dark":
            return "dark", view.dark_amount
        if verb == "raise":
            sizes = sizes_for(view, hand.actions, self.tree.pot_sizes)
            if sizes:
                return "raise", sizes.get(label, sizes[nearest(sizes, max(sizes.values()))])
            verb = "call"
        if verb == "call" and "call" not in view.verbs:
            return "fold", None
        return verb, None

    def _locate(self, hand: Hand, seat: int) -> Key | None:
        """The tree node of the public history, a bot raise mapped to the nearest size there."""
        actions = hand.view_for(seat)["actions"]
        key: Key = ()
        replay = new_hand()
        for action in actions:
            node = self.tree.nodes.get(key)
            if node is None:
                return None
            verb = action[1]
            label = ""
            if verb == "raise":
                sizes = sizes_for(bot_view(replay, action[0]), replay.actions, self.tree.pot_sizes)
                label = nearest(sizes, action[2])
                # Only sizes the tree has (a size the bot was never seen to use is not): the nearest.
                known = {lab: sizes[lab] for (v, lab) in node.options if v == "raise" and lab in sizes}
                if label not in known and known:
                    label = nearest(known, action[2])
            child = node.options.get((verb, label))
            if not isinstance(child, tuple) or not child or isinstance(child[0], str):
                return None
            replay.act(action[0], verb, action[2] if len(action) > 2 else None)
            key = child
        node = self.tree.nodes.get(key)
        if node is None or node.seat != seat or key not in self.strategy:
            return None
        return key


def check(
    level: str, exploiters: Sequence[Exploiter], *, deals: int, seed: int, policy: Policy | None = None
) -> list[float]:
    """The exploiter's mean net chips per deal pair in the real engine (it sits in seat 0, then 1)."""
    deck_seed = server_seed(f"best-response-{seed}")
    bot = policy if policy is not None else level_policy(level)

    out = []
    for deal in range(deals):
        nets = []
        for me in (0, 1):
            exploiter = exploiters[me]

            def decide_(
                hand: Hand, s: int, rng: random.Random, me: int = me, exploiter: Exploiter = exploiter
            ):
                if s == me:
                    return exploiter.move(hand, s, rng)
                return bot(bot_view(hand, s), hand.view_for(s)["actions"], rng)

            rngs = [random.Random(f"{deck_seed}:{deal}:{me}:{side}") for side in range(2)]
            nets.append(play_deal([decide_, decide_], seed=deck_seed, deal=deal, rngs=rngs)[me])
        out.append(sum(nets) / 2)
    return out


# ---------------------------------------------------------------------- report


def habits(tree: Tree, strategy: dict[Key, list[Option]], joint: list[list[float]]) -> dict[str, Any]:
    """A few readable traits of the best response: its dark choices, and its choices at the
    betting decisions before any call or raise (each such node alike, reached or not), weighted by
    how often it holds each point value."""
    weights = [sum(row) for row in joint]
    out: dict[str, Any] = {"dark": {}}
    decisions: dict[str, float] = {}
    for key, choice in strategy.items():
        if tree.nodes[key].phase == "dark":
            history = " ".join(f"{verb}" for _seat, verb, _label in key) or "first"
            out["dark"][f"after {history}"] = choice[0][0]
            continue
        if any(a[1] in ("raise", "call") for a in key):
            continue  # the first betting decision only
        for i, (verb, label) in enumerate(choice):
            name = f"{verb} {label}".strip()
            decisions[name] = decisions.get(name, 0.0) + weights[i]
    total = sum(decisions.values()) or 1.0
    out["first_decision"] = {
        k: round(v / total, 3) for k, v in sorted(decisions.items(), key=lambda kv: -kv[1])
    }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--level", default="hard", choices=[*LEVELS, "cfr"], help="cfr: bench.solver's strategy"
    )
    parser.add_argument("--sizes", default="half:0.5,pot:1,x2:2,x4:4", help="raises label:times-the-pot")
    parser.add_argument(
        "--strategy", type=Path, help="the strategy file for --level cfr (bench.solver's by default)"
    )
    parser.add_argument("--deals", type=int, default=10_000, help="deals of the check, each played twice")
    parser.add_argument(
        "--samples", type=int, default=64, help="bot decisions sampled per node and point value"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="default bench/results/best_response_LEVEL.json")
    args = parser.parse_args(argv)
    args.out = args.out or RESULTS / f"best_response_{args.level}.json"
    began = time.perf_counter()
    joint = prior()
    sizes = tuple((label, float(times)) for label, times in (p.split(":") for p in args.sizes.split(",")))
    policy = None
    if args.level == "cfr":
        from bench.solver import STRATEGY, CfrPlayer  # the solver builds on this module

        policy = CfrPlayer.load(args.strategy or STRATEGY)
    trees, strategies, values = [], [], []
    for me in (0, 1):
        seed = args.seed * 10 + me
        tree = Tree(me=me, level=args.level, samples=args.samples, seed=seed, policy=policy, pot_sizes=sizes)
        value, strategy = solve(tree, joint)
        trees.append(tree)
        strategies.append(strategy)
        values.append(value)
    built = time.perf_counter() - began
    exploiters = [Exploiter(t, s) for t, s in zip(trees, strategies)]
    stats = summary(check(args.level, exploiters, deals=args.deals, seed=args.seed, policy=policy))
    seconds = time.perf_counter() - began
    predicted = sum(values) / 2
    ci = f"[{stats['low']:+.2f}, {stats['high']:+.2f}]"
    print(f"{'best response vs ' + args.level:<28} {'chips/hand':>10} {'95% CI':>18} {'pairs':>6}")
    print(f"{'  in the abstraction':<28} {predicted:>+10.2f} {'':>18} {'':>6}")
    print(f"{'  in the real game':<28} {stats['mean']:>+10.2f} {ci:>18} {stats['pairs']:>6}")
    nodes = sum(len(t.nodes) for t in trees)
    off = sum(e.off_tree for e in exploiters)
    moves = sum(e.moves for e in exploiters)
    print(
        f"tree nodes {nodes}, bot decisions sampled {sum(t.decide_calls for t in trees)}, "
        f"built in {built:.0f} s"
    )
    print(f"exploiter moves {moves}, off the tree {off}; total {seconds:.0f} s")
    out = {
        "python": platform.python_version(),
        "level": args.level,
        "setting": {"seats": 2, "stake": STAKE, "chips": CHIPS, "dark_play": True},
        "abstraction": {
            "points": CLASSES,
            "raises": ["min", *(label for label, _ in sizes), "max"],
            "max_raises": MAX_RAISES,
        },
        "samples": args.samples,
        "seed": args.seed,
        "deals": args.deals,
        "unit": "exploiter's chips won per hand, 95% interval over duplicate deal pairs",
        "predicted": {"mean": predicted, "as_dealer": values[0], "as_non_dealer": values[1]},
        "real": stats,
        "tree_nodes": nodes,
        "exploiter_moves": moves,
        "off_tree_moves": off,
        "habits": {
            "as_dealer": habits(trees[0], strategies[0], joint),
            "as_non_dealer": habits(trees[1], strategies[1], joint),
        },
        "seconds": round(seconds, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
