"""The CFR+ solver of heads-up practice Svara: the strategy the hard level plays.

    python -m bench.solver                # the shipped file: games/engine/strategies/hard.json.gz
    python -m bench.solver --play normal,easy,threshold:20:21 --deals 5000
    python -m bench.best_response --level hard      # its exploitability in the real game

It solves several games, each from a root state: *the deal* at a few stack depths (``--depths``, in
stakes, each seat's chips at the deal; practice is 50) and *the svara replay* over a grid of (stack
behind, pot) (``--replays``; heads-up a replay is a new deal of the same two, the pot carried,
no dark round and no join). The public tree of each is built by driving the real engine, as in
``bench.best_response``; both seats choose among fold, call and the raises min, half, one, two
and four pots (after calling) and the cap, at most ``MAX_RAISES`` raises a deal (``--sizes``,
``--max-raises``); hands are grouped by points (24 values, the joint prior with exact card
removal); in the dark round a seat has no cards, so one strategy for all its hands. A showdown tie
counts 0 (the replay is a fair re-deal, solved on its own). CFR+ (regret matching+, alternating
updates, linear averaging), vectorised over the 24 point values with numpy; deterministic (no
sampling: ``--seed`` only picks the decks of ``--play``). It reports the exploitability of the
average strategy in the abstraction every ``--report`` iterations and writes per-mille
probabilities, gzipped JSON, which ``games.engine.solved`` reads (pure Python).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import random
import sys
import time
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from bench.best_response import CLASSES, Option, prior
from bench.bots import play_deal, server_seed, summary
from bench.duel import player as named_player
from games.engine import solved
from games.engine.bots import POINT_VALUES, BotView, Move, bot_view, decide
from games.engine.hand import Hand

RESULTS = Path(__file__).resolve().parent / "results"
STRATEGY = solved.STRATEGY_FILE
STAKE = 10
POT_SIZES: tuple[tuple[str, float], ...] = (("half", 0.5), ("pot", 1.0), ("x2", 2.0), ("x4", 4.0))
MAX_RAISES = 4
DEPTHS = "20,50,100"  # stakes each at the deal: practice's 500 chips at stake 10 is 50
REPLAYS = "20:6,20:16,45:6,45:16,45:40"  # stack behind : pot, in stakes, at the replay's start


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


@dataclasses.dataclass(frozen=True)
class Root:
    """Where a solved game starts: a deal (each seat's chips at the deal) or a svara replay (each
    seat's chips behind and the pot carried), in stakes."""

    kind: str
    stack: int
    pot: int = 2

    @classmethod
    def deal(cls, chips: int) -> Root:
        return cls("deal", chips - 1, 2)  # the antes are in: one stake each behind them

    def hand(self) -> Hand:
        """The engine's hand at this root, seat 0 dealing; a replay reached by a tied showdown."""
        if self.kind == "deal":
            return Hand.start(
                stake=STAKE, names=["a", "b"], chips=[(self.stack + 1) * STAKE] * 2, dealer=0,
                dark_play=True, decks=[solved.TIE_DECK],
            )  # fmt: skip
        raise_to = self.pot * STAKE // 2 - STAKE  # the raise both matched before the tie
        if raise_to < STAKE or self.pot % 2:
            raise ValueError("a replay's pot is an even number of stakes, at least 4")
        hand = Hand.start(
            stake=STAKE, names=["a", "b"], chips=[self.stack * STAKE + STAKE + raise_to] * 2, dealer=0,
            dark_play=True, decks=[solved.TIE_DECK] * 2,
        )  # fmt: skip
        hand.act(1, "decline")
        hand.act(1, "raise", raise_to)
        hand.act(0, "call")
        assert hand.svaras == 1 and hand.pot == self.pot * STAKE
        return hand


Key = str  # the public history from the root: "seat:verb:label" joined by "|"


def options(view: BotView, hand: Hand, root_moves: int, abstraction: Abstraction) -> dict[Option, int | None]:
    if view.phase == "dark":
        return {("dark", ""): view.dark_amount, ("decline", ""): None}
    out: dict[Option, int | None] = {("fold", ""): None}
    if "call" in view.verbs:
        out[("call", "")] = None
    if view.raise_range is not None:
        low, high = view.raise_range
        sizes = solved.abstract_raises(
            stake=view.stake,
            target=view.target,
            pot=view.pot,
            to_call=view.to_call,
            low=low,
            high=high,
            raises=sum(1 for a in hand.actions[root_moves:] if a[1] == "raise"),
            pot_sizes=abstraction.pot_sizes,
            max_raises=abstraction.max_raises,
        )
        for label, amount in sizes.items():
            out[("raise", label)] = amount
    return out


class Game:
    """The abstract game as flat arrays: nodes in depth-first order, children after their parent."""

    def __init__(self, abstraction: Abstraction | None = None, root: Root | None = None) -> None:
        self.abstraction = abstraction or Abstraction()
        self.root = root or Root.deal(50)
        self.keys: list[Key] = []
        self.seat: list[int] = []
        self.dark: list[bool] = []
        self.actions: list[list[Option]] = []
        self.children: list[list[int]] = []  # node index, or -1 - terminal index
        self.terminals: list[tuple[str, float]] = []  # ("fold", seat 0's net) or ("show", each one's stake)
        hand = self.root.hand()
        self._moves = len(hand.actions)
        # Seat 0's net counts from the root, with half the pot already in as its own: a tie is 0.
        self._base = hand.chips[0] + hand.pot / 2
        self._build("", hand)

    def _build(self, key: Key, hand: Hand) -> int:
        legal = hand.legal()
        assert legal is not None
        view = bot_view(hand, legal.seat)
        index = len(self.keys)
        self.keys.append(key)
        self.seat.append(legal.seat)
        self.dark.append(view.phase == "dark")
        choices = options(view, hand, self._moves, self.abstraction)
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
                self.terminals.append(("fold", float(child.chips[0] - self._base)))
                self.children[index].append(-len(self.terminals))
            else:
                self.children[index].append(self._build(solved.child(key, legal.seat, *option), child))
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
        """The game as ``games.engine.solved`` reads it: per node the seat, the moves and the
        average strategy in per mille per point value (one row for a dark decision)."""
        game = self.game
        nodes = {}
        for node, key in enumerate(game.keys):
            avg = self.average_strategy(node)
            rows = avg[:1] if game.dark[node] else avg
            nodes[key] = [
                game.seat[node],
                [f"{v}:{label}" for v, label in game.actions[node]],
                [per_mille(row) for row in rows],
            ]
        return {
            "kind": game.root.kind,
            "stack": game.root.stack,
            "pot": game.root.pot,
            "pot_sizes": [list(p) for p in game.abstraction.pot_sizes],
            "max_raises": game.abstraction.max_raises,
            "nodes": nodes,
        }


def per_mille(row: np.ndarray) -> list[int]:
    """Probabilities as whole thousandths summing to 1000 (largest remainders get the rest)."""
    scaled = row * 1000
    out = np.floor(scaled).astype(int)
    for i in np.argsort(out - scaled)[: 1000 - int(out.sum())]:
        out[i] += 1
    return [int(x) for x in out]


def solve(job: tuple[Root, Abstraction, int, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One game solved: its strategy (engine format) and a report of the run."""
    root, abstraction, iterations, report = job
    began = time.perf_counter()
    game = Game(abstraction, root)
    solver = Solver(game)
    history = []
    while solver.iterations < iterations:
        solver.iterate(min(report, iterations - solver.iterations))
        expl = solver.exploitability()
        history.append({"iterations": solver.iterations, "exploitability": round(expl, 4)})
        print(
            f"{root.kind} stack {root.stack} pot {root.pot}: {solver.iterations:>5} iterations, "
            f"exploitable by {expl:.3f} a hand, {time.perf_counter() - began:.0f} s",
            flush=True,
        )
    seconds = round(time.perf_counter() - began, 1)
    summary_ = {**dataclasses.asdict(root), "nodes": len(game.keys), "seconds": seconds, "history": history}
    return solver.to_json(), summary_


class CfrPlayer:
    """Plays a strategy file from a seat's view through ``games.engine.solved`` (the hard level's
    own lookup), and hard's heuristic where no solved game applies; a ``Policy`` of best_response."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.games = solved.parse(data)
        self.off_tree = 0

    @classmethod
    def load(cls, path: Path = STRATEGY) -> CfrPlayer:
        return cls(json.loads(gzip.decompress(path.read_bytes())))

    def __call__(self, view: BotView, actions: Sequence[Sequence[Any]], rng: random.Random) -> Move:
        move = solved.move(view, rng, self.games)
        if move is None:
            if view.svaras == 0 and view.phase != "join":
                self.off_tree += 1
            return decide(view, level="hard", rng=rng)
        return move


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


def roots(depths: str, replays: str) -> list[Root]:
    out = [Root.deal(int(d)) for d in depths.split(",") if d]
    for item in (r for r in replays.split(",") if r):
        stack, pot = item.split(":")
        out.append(Root("replay", int(stack), int(pot)))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--replay-iterations", type=int, default=400)
    parser.add_argument("--depths", default=DEPTHS, help="deals: each seat's chips, in stakes, by comma")
    parser.add_argument("--replays", default=REPLAYS, help="replays: stack:pot in stakes, by comma")
    parser.add_argument("--sizes", default="half:0.5,pot:1,x2:2,x4:4", help="label:times-the-pot, by comma")
    parser.add_argument("--max-raises", type=int, default=MAX_RAISES, help="then only the cap")
    parser.add_argument("--report", type=int, default=200, help="print the exploitability every so often")
    parser.add_argument("--jobs", type=int, default=1, help="games solved at once (the machine is shared)")
    parser.add_argument("--seed", type=int, default=1, help="the decks of --play")
    parser.add_argument("--out", type=Path, default=STRATEGY, help="the strategy file (gzipped JSON)")
    parser.add_argument("--summary", type=Path, default=RESULTS / "solver.json")
    parser.add_argument("--play", default="", help="opponents to play the saved strategy against, by comma")
    parser.add_argument("--deals", type=int, default=5000, help="deals of --play, each played twice")
    args = parser.parse_args(argv)
    if args.play:
        cfr = CfrPlayer.load(args.out)
        times: list[float] = []
        print(f"{'solved vs':<24} {'chips/hand':>10} {'95% CI':>18} {'pairs':>6}")
        for opponent in args.play.split(","):
            stats = summary(play(cfr, opponent, deals=args.deals, seed=args.seed, times=times))
            ci = f"[{stats['low']:+.2f}, {stats['high']:+.2f}]"
            print(f"{opponent:<24} {stats['mean']:>+10.2f} {ci:>18} {stats['pairs']:>6}", flush=True)
        times.sort()
        p50, p99 = (times[int(q * (len(times) - 1))] * 1000 for q in (0.5, 0.99))
        print(f"moves off the tree: {cfr.off_tree}; decision time p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        return
    began = time.perf_counter()
    abstraction = Abstraction.parse(args.sizes, args.max_raises)
    jobs = [
        (root, abstraction, args.iterations if root.kind == "deal" else args.replay_iterations, args.report)
        for root in roots(args.depths, args.replays)
    ]
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            done = pool.map(solve, jobs)
    else:
        done = [solve(job) for job in jobs]
    seconds = round(time.perf_counter() - began, 1)
    out = {"version": 1, "games": [strategy for strategy, _ in done]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same solve gives the same bytes.
    args.out.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    report = {
        "command": " ".join(["python -m bench.solver", *(sys.argv[1:] if argv is None else argv)]),
        "abstraction": {"pot_sizes": [list(p) for p in abstraction.pot_sizes], "max_raises": args.max_raises},
        "iterations": {"deal": args.iterations, "replay": args.replay_iterations},
        "jobs": args.jobs,
        "seconds": seconds,
        "games": [s for _, s in done],
        "file_bytes": args.out.stat().st_size,
    }
    args.summary.parent.mkdir(parents=True, exist_ok=True)
    args.summary.write_text(json.dumps(report, indent=2))
    print(f"written {args.out} ({report['file_bytes']} bytes) in {seconds:.0f} s")


if __name__ == "__main__":
    main()
