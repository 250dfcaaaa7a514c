"""A CFR+ prototype for heads-up practice Svara: a strategy for both seats, in an abstraction.

    python -m bench.solver              # 3000 iterations, about 4 min: bench/results/solver_strategy.json
    python -m bench.solver --play hard,normal,easy,threshold:20:21 --deals 5000
    python -m bench.best_response --level cfr      # its exploitability in the real game

Practice setting: heads-up, stake 10, 500 chips each, dark play on, seat 0 deals. The public tree
is built by driving the real engine, as in ``bench.best_response``; both seats choose among fold,
call and the raises min, half, one, two and four pots (after calling) and the cap, at most
``MAX_RAISES`` raises a deal (``--sizes``, ``--max-raises``); hands are grouped by points (24
values, the joint prior with exact card removal); in the dark round a seat has no cards, so one
strategy for all its hands. A showdown tie counts 0 (the replay is about a fair re-deal). CFR+
(regret matching+, alternating updates, linear averaging), vectorised over the 24 point values with
numpy; deterministic (no sampling), so no seed. It reports the exploitability of the average
strategy in the abstraction every ``--report`` iterations.

Not a level of the computer: ``CfrPlayer`` plays the strategy from a seat's view and the public
moves (a raise off the tree mapped to the nearest size; in a svara replay it plays the hard level).
Its exploitability in the real game comes from ``bench.best_response --level cfr``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.best_response import CLASSES, INDEX, Option, nearest, new_hand, prior, raise_sizes, raises_so_far
from bench.bots import CHIPS, play_deal, server_seed, summary
from bench.duel import player as named_player
from games.engine.bots import POINT_VALUES, BotView, Move, bot_view, decide
from games.engine.hand import Hand

RESULTS = Path(__file__).resolve().parent / "results"
STRATEGY = RESULTS / "solver_strategy.json"
POT_SIZES: tuple[tuple[str, float], ...] = (("half", 0.5), ("pot", 1.0), ("x2", 2.0), ("x4", 4.0))
MAX_RAISES = 4


@dataclasses.dataclass(frozen=True)
class Abstraction:
    """The raise sizes (label, times the pot after calling) besides the minimum and the cap, and
    how many raises a deal before only the cap is left."""

    pot_sizes: tuple[tuple[str, float], ...] = POT_SIZES
    max_raises: int = MAX_RAISES

    @classmethod
    def parse(cls, text: str, max_raises: int) -> Abstraction:
        """From "pot:1,x2:2" (label:times, by comma)."""
        pairs = [item.split(":") for item in text.split(",") if item]
        return cls(tuple((label, float(times)) for label, times in pairs), max_raises)


Key = str  # the public history: "seat:verb:label" joined by "|"


def sizes(view: BotView, actions: Sequence[Sequence[Any]], abstraction: Abstraction) -> dict[str, int]:
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
        pot_sizes=abstraction.pot_sizes,
        max_raises=abstraction.max_raises,
    )


def options(
    view: BotView, actions: Sequence[Sequence[Any]], abstraction: Abstraction
) -> dict[Option, int | None]:
    if view.phase == "dark":
        return {("dark", ""): view.dark_amount, ("decline", ""): None}
    out: dict[Option, int | None] = {("fold", ""): None}
    if "call" in view.verbs:
        out[("call", "")] = None
    for label, amount in sizes(view, actions, abstraction).items():
        out[("raise", label)] = amount
    return out


def child_key(key: Key, seat: int, option: Option) -> Key:
    step = f"{seat}:{option[0]}:{option[1]}"
    return f"{key}|{step}" if key else step


class Game:
    """The abstract game as flat arrays: nodes in depth-first order, children after their parent."""

    def __init__(self, abstraction: Abstraction | None = None) -> None:
        self.abstraction = abstraction or Abstraction()
        self.keys: list[Key] = []
        self.seat: list[int] = []
        self.dark: list[bool] = []
        self.actions: list[list[Option]] = []
        self.children: list[list[int]] = []  # node index, or -1 - terminal index
        self.terminals: list[tuple[str, float]] = []  # ("fold", seat 0's net) or ("show", each one's stake)
        self._build("", new_hand())

    def _build(self, key: Key, hand: Hand) -> int:
        legal = hand.legal()
        assert legal is not None
        view = bot_view(hand, legal.seat)
        index = len(self.keys)
        self.keys.append(key)
        self.seat.append(legal.seat)
        self.dark.append(view.phase == "dark")
        choices = options(view, hand.actions, self.abstraction)
        self.actions.append(list(choices))
        self.children.append([])
        for option, amount in choices.items():
            child = Hand.from_json(hand.to_json())
            shows = len(child.showdowns)
            child.act(legal.seat, option[0], amount)
            if len(child.showdowns) > shows:
                self.terminals.append(("show", child.pot / 2))
                self.children[index].append(-len(self.terminals))
            elif child.finished:
                self.terminals.append(("fold", float(child.chips[0] - CHIPS)))
                self.children[index].append(-len(self.terminals))
            else:
                self.children[index].append(self._build(child_key(key, legal.seat, option), child))
        return index


class Solver:
    def __init__(self, game: Game) -> None:
        self.game = game
        joint = np.array(prior())  # P(seat 0 holds i, seat 1 holds j): the deal is symmetric
        self.joint = joint
        sign = np.sign(np.subtract.outer(np.array(POINT_VALUES), np.array(POINT_VALUES)))
        self.show = joint * sign  # seat 0's showdown result per (i, j), weighted by the deal
        self.regret = [np.zeros((CLASSES, len(a))) for a in game.actions]
        self.average = [np.zeros((CLASSES, len(a))) for a in game.actions]
        self.iterations = 0

    def strategy(self, node: int) -> np.ndarray:
        regret = self.regret[node]
        positive = np.maximum(regret, 0.0)
        total = positive.sum(axis=1, keepdims=True)
        uniform = np.full_like(regret, 1.0 / regret.shape[1])
        return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)

    def average_strategy(self, node: int) -> np.ndarray:
        avg = self.average[node]
        total = avg.sum(axis=1, keepdims=True)
        uniform = np.full_like(avg, 1.0 / avg.shape[1])
        return np.where(total > 0, avg / np.where(total > 0, total, 1.0), uniform)

    @staticmethod
    def _cut(
        reach: tuple[np.ndarray, np.ndarray], seat: int, share: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The reach below an action of ``seat`` taken with probability ``share`` per point value."""
        return (reach[0] * share, reach[1]) if seat == 0 else (reach[0], reach[1] * share)

    def _terminal(self, index: int, reach: tuple[np.ndarray, np.ndarray], me: int) -> np.ndarray:
        """Counterfactual value for ``me`` per own point value: over the other's hands and reach."""
        kind, amount = self.game.terminals[index]
        other = reach[1 - me]
        if kind == "fold":
            weight = self.joint @ other  # symmetric: the same for either seat
            return weight * (amount if me == 0 else -amount)
        if me == 0:
            return amount * (self.show @ other)
        return -amount * (self.show.T @ other)

    def _walk(self, node: int, reach: tuple[np.ndarray, np.ndarray], me: int, weight: float) -> np.ndarray:
        game = self.game
        seat = game.seat[node]
        sigma = self.strategy(node)
        if game.dark[node]:  # no cards yet: one strategy for every hand (row 0 stands for all)
            sigma = np.repeat(sigma[:1], CLASSES, axis=0)
        values = []
        for a, child in enumerate(game.children[node]):
            sub = reach if seat == me else self._cut(reach, seat, sigma[:, a])
            if child < 0:
                values.append(self._terminal(-1 - child, sub, me))
            else:
                values.append(self._walk(child, sub, me, weight))
        if seat != me:
            return np.sum(values, axis=0)
        # The updater's own node: its reach is not applied below, so the values are counterfactual.
        stacked = np.stack(values, axis=1)  # (classes, actions)
        value = (stacked * sigma).sum(axis=1)
        gain = stacked - value[:, None]
        if game.dark[node]:
            gain = np.repeat(gain.sum(axis=0, keepdims=True), CLASSES, axis=0)
        self.regret[node] = np.maximum(self.regret[node] + gain, 0.0)  # CFR+: regrets floored at 0
        self.average[node] += weight * reach[me][:, None] * sigma
        return value

    def iterate(self, count: int) -> None:
        ones = np.ones(CLASSES)
        for _ in range(count):
            self.iterations += 1
            for me in (0, 1):
                self._walk(0, (ones, ones), me, float(self.iterations))

    def best_response(self, me: int) -> float:
        """What seat ``me`` wins per hand with a best response to the other's average strategy."""
        game = self.game

        def walk(node: int, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            seat = game.seat[node]
            values = []
            sigma = self.average_strategy(node)
            if game.dark[node]:
                sigma = np.repeat(sigma[:1], CLASSES, axis=0)
            for a, child in enumerate(game.children[node]):
                sub = reach if seat == me else self._cut(reach, seat, sigma[:, a])
                values.append(self._terminal(-1 - child, sub, me) if child < 0 else walk(child, sub))
            if seat != me:
                return np.sum(values, axis=0)
            stacked = np.stack(values, axis=1)
            if game.dark[node]:
                return stacked[:, int(np.argmax(stacked.sum(axis=0)))]
            return stacked.max(axis=1)

        ones = np.ones(CLASSES)
        return float(walk(0, (ones, ones)).sum())

    def exploitability(self) -> float:
        """Chips a hand a best response wins, averaged over the two seats (0 at an equilibrium)."""
        return (self.best_response(0) + self.best_response(1)) / 2

    def to_json(self) -> dict[str, Any]:
        game = self.game
        nodes = {}
        for node, key in enumerate(game.keys):
            avg = self.average_strategy(node)
            nodes[key] = {
                "seat": game.seat[node],
                "actions": [f"{v}:{label}" for v, label in game.actions[node]],
                "strategy": np.round(avg[:1] if game.dark[node] else avg, 4).tolist(),
            }
        abstraction = self.game.abstraction
        return {
            "pot_sizes": [list(p) for p in abstraction.pot_sizes],
            "max_raises": abstraction.max_raises,
            "nodes": nodes,
        }


class CfrPlayer:
    """Plays a solved strategy from a seat's view and the public moves; a ``Policy`` of best_response."""

    def __init__(self, strategy: dict[str, Any]) -> None:
        self.nodes: dict[str, Any] = strategy["nodes"]
        pot_sizes = tuple((label, float(times)) for label, times in strategy["pot_sizes"])
        self.abstraction = Abstraction(pot_sizes, int(strategy["max_raises"]))
        self.off_tree = 0

    @classmethod
    def load(cls, path: Path = STRATEGY) -> CfrPlayer:
        return cls(json.loads(path.read_text()))

    def __call__(self, view: BotView, actions: Sequence[Sequence[Any]], rng: random.Random) -> Move:
        key = self._locate(actions) if view.svaras == 0 and view.phase != "join" else None
        node = self.nodes.get(key) if key is not None else None
        if node is None or node["seat"] != view.seat:
            if view.svaras == 0:
                self.off_tree += 1
            return decide(view, level="hard", rng=rng)
        row = node["strategy"][0 if view.phase == "dark" else INDEX[view.points or 0]]
        verb, label = rng.choices(node["actions"], weights=row)[0].split(":")
        if verb == "dark":
            return "dark", view.dark_amount
        if verb == "raise":
            real = sizes(view, actions, self.abstraction)
            if real:
                return "raise", real.get(label, real["max"])
            verb = "call"
        if verb == "call" and "call" not in view.verbs:
            return "fold", None
        return verb, None

    def _locate(self, actions: Sequence[Sequence[Any]]) -> str | None:
        key = ""
        replay = new_hand()
        for action in actions:
            node = self.nodes.get(key)
            if node is None:
                return None
            verb, label = action[1], ""
            if verb == "raise":
                real = sizes(bot_view(replay, action[0]), replay.actions, self.abstraction)
                labels = [a.split(":")[1] for a in node["actions"] if a.startswith("raise:")]
                known = {lab: real[lab] for lab in labels if lab in real} or real
                label = nearest(known, action[2])
            if f"{verb}:{label}" not in node["actions"]:
                return None
            replay.act(action[0], verb, action[2] if len(action) > 2 else None)
            key = child_key(key, action[0], (verb, label))
        return key


def play(
    cfr: CfrPlayer, opponent: str, *, deals: int, seed: int, times: list[float] | None = None
) -> list[float]:
    """The strategy's mean net chips per duplicate deal pair in the real engine against ``opponent``;
    the seconds of each of its decisions are appended to ``times`` when given."""
    other = named_player(opponent)
    deck_seed = server_seed(f"solver-{seed}")
    out = []
    for deal in range(deals):
        nets = []
        for me in (0, 1):

            def decide_(hand: Hand, s: int, rng: random.Random, me: int = me) -> Move:
                view = bot_view(hand, s)
                if s != me:
                    return other(view, rng)
                began = time.perf_counter()
                move = cfr(view, hand.actions, rng)
                if times is not None:
                    times.append(time.perf_counter() - began)
                return move

            rngs = [random.Random(f"{deck_seed}:{deal}:{me}:{side}") for side in range(2)]
            nets.append(play_deal([decide_, decide_], seed=deck_seed, deal=deal, rngs=rngs)[me])
        out.append(sum(nets) / 2)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--sizes", default="half:0.5,pot:1,x2:2,x4:4", help="label:times-the-pot, by comma")
    parser.add_argument("--max-raises", type=int, default=MAX_RAISES, help="then only the cap")
    parser.add_argument("--report", type=int, default=200, help="print the exploitability every so often")
    parser.add_argument("--seed", type=int, default=1, help="the decks of --play")
    parser.add_argument("--strategy", type=Path, default=STRATEGY)
    parser.add_argument("--play", default="", help="opponents to play the saved strategy against, by comma")
    parser.add_argument("--deals", type=int, default=5000, help="deals of --play, each played twice")
    args = parser.parse_args(argv)
    if args.play:
        cfr = CfrPlayer.load(args.strategy)
        times: list[float] = []
        print(f"{'cfr vs':<24} {'chips/hand':>10} {'95% CI':>18} {'pairs':>6}")
        for opponent in args.play.split(","):
            stats = summary(play(cfr, opponent, deals=args.deals, seed=args.seed, times=times))
            ci = f"[{stats['low']:+.2f}, {stats['high']:+.2f}]"
            print(f"{opponent:<24} {stats['mean']:>+10.2f} {ci:>18} {stats['pairs']:>6}", flush=True)
        times.sort()
        p50, p99 = (times[int(q * (len(times) - 1))] * 1000 for q in (0.5, 0.99))
        print(f"moves off the tree: {cfr.off_tree}; decision time p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        return
    began = time.perf_counter()
    game = Game(Abstraction.parse(args.sizes, args.max_raises))
    solver = Solver(game)
    built = time.perf_counter() - began
    print(f"tree: {len(game.keys)} decision nodes, {len(game.terminals)} terminals ({built:.1f} s)")
    history = []
    while solver.iterations < args.iterations:
        solver.iterate(min(args.report, args.iterations - solver.iterations))
        expl = solver.exploitability()
        history.append({"iterations": solver.iterations, "exploitability": expl})
        spent = time.perf_counter() - began
        print(f"{solver.iterations:>6} iterations: exploitable by {expl:.3f} a hand, {spent:.0f} s")
    out = solver.to_json()
    out.update(iterations=solver.iterations, seconds=round(time.perf_counter() - began, 1), history=history)
    args.strategy.parent.mkdir(parents=True, exist_ok=True)
    args.strategy.write_text(json.dumps(out))
    print(f"written {args.strategy}")


if __name__ == "__main__":
    main()
