"""Fault drill: the room played for real while its processes die, its Redis is flushed and its
sockets are flooded; then the books must balance and nothing may have leaked or stalled.

It starts everything itself: a dedicated PostgreSQL database (created, migrated, seeded, dropped
at the end), two Daphne processes and the table worker (``LIVE_TABLE_WORKER``) on Redis under a
key prefix of the run's own. Two scripted players sit at each table, each on its own socket over
real WebSockets, and play as fast as people click (a move 0.05-0.4 s after their turn comes:
calls, minimum raises, folds, dark bets, svara joins), reconnecting to a live server when theirs
dies, as the page does. Faults, one after another every ``--fault-every`` seconds and round again:

- ``kill-web``: SIGKILL one Daphne process, started again two seconds later (on a new port);
- ``kill-worker``: SIGKILL the table worker, started again two seconds later (it stands by until
  the dead one's lease runs out);
- ``flush``: every key of the room in Redis deleted at once (the state, the deadlines, the worker's
  lease): what FLUSHDB does to the room, without touching other data on the same Redis;
- ``flood``: a spectator's socket sends 2,000 messages as fast as it can (it must be closed with
  4008) and a lobby socket 500.

Printed and written to bench/results/drill.json: hands finished (and cancelled by the faults), the
players' chips and the house's before and after, ``audit_chips``, for each fault the tables that
made no progress for longer than twice the turn time after it, frames that showed a player a card
of another's before its showdown, and tracebacks in any server's log.

    python -m bench.drill [--tables 20] [--seconds 120] [--fault-every 15] [--turn-seconds 8]
                          [--faults kill-web,kill-worker,flush,flood] [--min-hands N] [--max-seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import redis
import websockets

from bench import harness as procs
from bench.frames import VERSION_RE, hidden_cards_seen, moves, seat_blocks

RESULTS = Path(__file__).resolve().parent / "results"
FAULTS = ("kill-web", "kill-worker", "flush", "flood")
STAKE = 10
BUY_IN = 500
FUNDS = 100_000  # each player's wallet: enough to buy in again all run long
AMOUNT_RE = re.compile(r'name="amount" min="(\d+)"')
OVER_RE = re.compile(r'data-phase="over" data-hand="(\d+)"')


@dataclass
class TableState:
    id: int
    progress: list[float] = field(default_factory=list)  # when any of its players saw a new state
    seen: set[tuple[str, int]] = field(default_factory=set)
    finished: set[int] = field(default_factory=set)  # hand numbers its players saw end
    seats: int = 2


@dataclass
class Fault:
    kind: str
    at: float
    detail: str = ""
    stalled: list[int] = field(default_factory=list)  # tables with no progress for 2x the turn after it
    worst_gap: float = 0.0


@dataclass
class Report:
    tables: int
    seconds: float
    turn_seconds: int
    hands_finished: int = 0
    hands_cancelled: int = 0
    hands_in_play: int = 0
    chips_before: dict[str, int] = field(default_factory=dict)
    chips_after: dict[str, int] = field(default_factory=dict)
    chips_lost: int = 0
    house_change: int = 0
    audit_ok: bool = False
    audit: str = ""
    faults: list[dict[str, Any]] = field(default_factory=list)
    stalls: int = 0
    stalls_without_fault: int = 0
    leaked_frames: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)
    frames: int = 0
    reconnects: int = 0
    moves_sent: int = 0
    chat_sent: int = 0  # --restless: chat lines and leaves the players sent
    leaves_sent: int = 0
    flood_closed_4008: list[bool] = field(default_factory=list)


class Room:
    """The processes of the room under drill: two web servers and the worker, restartable."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.servers: list[procs.Daphne | None] = [None, None]
        self.worker: procs.TableWorker | None = None
        self.logs: list[Path] = []
        self.starts = 0

    def start_server(self, index: int) -> None:
        self.starts += 1
        log = self.log_dir / f"daphne-{index}-{self.starts}.log"
        self.logs.append(log)
        self.servers[index] = procs.Daphne.start(env=self.env, log=log)

    def start_worker(self, *, ready: str = "table clock") -> None:
        self.starts += 1
        log = self.log_dir / f"worker-{self.starts}.log"
        self.logs.append(log)
        self.worker = procs.TableWorker.start(env=self.env, log=log, ready=ready)

    def live(self) -> list[procs.Daphne]:
        return [s for s in self.servers if s is not None and s.alive]

    def stop(self) -> None:
        for process in [*self.servers, self.worker]:
            if process is not None:
                process.stop()


class Player:
    """One scripted player on one socket at a time, reconnecting as the page does."""

    def __init__(self, drill: Drill, *, name: str, user_id: int, cookie: str, table: TableState, seat: int):
        self.drill = drill
        self.name, self.user_id, self.cookie = name, user_id, cookie
        self.table, self.seat = table, seat
        self.rng = random.Random(f"{name}:{seat}")
        self.acted_for: tuple[str, int] | None = None
        self.tried_for: tuple[str, int] | None = None  # a sit or a comeback: once per state seen
        self.counter = 0
        self.away = False  # a restless player who just left: sits again by its own timer

    async def run(self) -> None:
        first = True
        while not self.drill.stopping:
            servers = self.drill.room.live()
            if not servers:
                await asyncio.sleep(0.2)
                continue
            server = servers[(self.seat + self.drill.rng.randrange(2)) % len(servers)]
            try:
                async with websockets.connect(
                    f"{server.ws_base}/ws/table/{self.table.id}/",
                    origin=server.origin,  # type: ignore[arg-type]
                    additional_headers={"Cookie": self.cookie},
                    proxy=None,
                    open_timeout=5,
                    max_queue=None,
                ) as ws:
                    if not first:
                        self.drill.report.reconnects += 1
                    first = False
                    await self.play(ws)
            except (OSError, websockets.WebSocketException, TimeoutError):
                pass
            if not self.drill.stopping:
                await asyncio.sleep(0.2 + self.rng.random() * 0.3)

    async def play(self, ws: Any) -> None:
        async for message in ws:
            frame = message if isinstance(message, str) else message.decode()
            self.drill.report.frames += 1
            problems = hidden_cards_seen(frame)
            if problems:
                self.drill.report.leaked_frames += [
                    f"{self.name} table {self.table.id}: {p}" for p in problems
                ]
            version = VERSION_RE.search(frame)
            if not version:
                continue
            stamp = (version.group(2), int(version.group(1)))
            over = OVER_RE.search(frame)
            if over:
                self.table.finished.add(int(over.group(1)))
            if stamp not in self.table.seen:
                self.table.seen.add(stamp)
                self.table.progress.append(time.monotonic())
            await self.respond(ws, frame, stamp)

    async def respond(self, ws: Any, frame: str, stamp: tuple[str, int]) -> None:
        mine = [pos for pos, (is_me, _block) in seat_blocks(frame).items() if is_me]
        if mine and self.drill.args.restless and await self.restless(ws, frame):
            return
        if not mine or 'value="comeback"' in frame:
            if self.tried_for == stamp:
                return  # the answer to the last try (a refusal) carries the same state
            self.tried_for = stamp
            if not mine:
                if 'class="sit-form"' in frame and not self.away:
                    await self.send(ws, verb="sit", position=str(self.seat), buy_in=str(BUY_IN))
                return
            # Sitting out: timed out while its server was down, or short of chips. Topping up is
            # refused when the seat has enough; coming back, when it has too few.
            await self.send(ws, verb="add", amount=str(BUY_IN))
            await self.send(ws, verb="comeback")
            return
        offered = moves(frame)
        if not offered or self.acted_for == stamp:
            return
        self.acted_for = stamp
        await asyncio.sleep(0.05 + self.rng.random() * 0.35)
        verb, amount = self.choose(offered, frame)
        self.drill.report.moves_sent += 1
        await self.send(ws, verb=verb, version=str(stamp[1]), epoch=stamp[0], amount=amount)

    async def restless(self, ws: Any, frame: str) -> bool:
        """The restless players (``--restless``): they talk, leave at any moment (their turn, a
        svara's join window, the result pause) and sit down again a moment later in another seat of
        the table. True when they left (nothing more to do on this frame)."""
        roll = self.rng.random()
        if roll < 0.04:
            self.drill.report.chat_sent += 1
            if self.rng.random() < 0.5:
                await self.send(ws, verb="chat", phrase=self.rng.choice(["gl", "nh", "ty"]))
            else:
                await self.send(ws, verb="chat", text="хубава ръка! " * self.rng.randrange(1, 14))
        if roll > 0.97:
            self.drill.report.leaves_sent += 1
            self.away = True
            await self.send(ws, verb="leave")
            asyncio.get_running_loop().call_later(
                0.5 + self.rng.random() * 2, lambda: asyncio.ensure_future(self.sit_again(ws))
            )
            return True
        return False

    async def sit_again(self, ws: Any) -> None:
        """Back at the table a moment after leaving, in any seat (the one left may not be free yet)."""
        self.away = False
        for seat in self.rng.sample(range(self.table.seats), self.table.seats):
            self.seat = seat
            await self.send(ws, verb="sit", position=str(seat), buy_in=str(BUY_IN))

    def choose(self, offered: list[str], frame: str) -> tuple[str, str | None]:
        roll = self.rng.random()
        if "join" in offered:
            return ("join" if roll < 0.5 else "skip"), None
        if "dark" in offered:
            return ("dark" if roll < 0.3 else "decline"), None
        if "raise" in offered and roll < 0.2:
            found = AMOUNT_RE.search(frame)
            if found:
                return "raise", found.group(1)
        if "call" in offered and roll < 0.9:
            return "call", None
        return "fold", None

    async def send(self, ws: Any, *, amount: str | None = None, **fields: str) -> None:
        self.counter += 1
        message = {**fields, "action_id": f"{self.name}-{self.counter}"}
        if amount is not None:
            message["amount"] = amount
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(json.dumps(message))


class Drill:
    def __init__(
        self, args: argparse.Namespace, room: Room, env: dict[str, str], redis_url: str, prefix: str
    ):
        self.args = args
        self.room = room
        self.env = env
        self.redis_url = redis_url
        self.prefix = prefix
        self.rng = random.Random(7)
        self.stopping = False
        self.tables: list[TableState] = []
        self.players: list[Player] = []
        self.spectator_cookie = ""
        self.faults: list[Fault] = []
        self.report = Report(tables=args.tables, seconds=args.seconds, turn_seconds=args.turn_seconds)

    def seed(self) -> None:
        tag = uuid.uuid4().hex[:6]
        names = [f"d{tag}t{t}s{s}" for t in range(self.args.tables) for s in range(2)] + [f"d{tag}watch"]
        tables = [
            {
                "name": f"drill {t}",
                "stake": STAKE,
                # Restless players hop seats: a free seat to hop to.
                "seat_count": 3 if self.args.restless else 2,
                "dark_play": t % 2 == 0,
                "turn_seconds": self.args.turn_seconds,
            }
            for t in range(self.args.tables)
        ]
        made = procs.django_call(self.env, "seed", players=names, tables=tables)
        users = made["users"]
        procs.django_call(self.env, "fund", users=[u["id"] for u in users.values()], chips=FUNDS)
        self.tables = [TableState(id=t, seats=3 if self.args.restless else 2) for t in made["tables"]]
        for t, table in enumerate(self.tables):
            for s in range(2):
                user = users[names[2 * t + s]]
                self.players.append(
                    Player(
                        self,
                        name=names[2 * t + s],
                        user_id=user["id"],
                        cookie=user["cookie"],
                        table=table,
                        seat=s,
                    )
                )
        self.spectator_cookie = users[names[-1]]["cookie"]
        self.user_ids = [u["id"] for u in users.values()]

    def chips(self) -> dict[str, Any]:
        return procs.django_call(self.env, "room", players=self.user_ids)

    async def run(self) -> None:
        loop_tasks = [asyncio.create_task(p.run()) for p in self.players]
        start = self.started = time.monotonic()
        kinds = [k for k in self.args.faults.split(",") if k]
        next_fault = start + self.args.fault_every
        turn = 0
        while not self.done(start):
            await asyncio.sleep(0.2)
            if kinds and time.monotonic() >= next_fault:
                await self.fault(kinds[turn % len(kinds)])
                turn += 1
                next_fault += self.args.fault_every
        self.stopping = True
        await asyncio.sleep(1.0)
        for task in loop_tasks:
            task.cancel()
        await asyncio.gather(*loop_tasks, return_exceptions=True)
        self.judge_stalls(end=time.monotonic())

    def done(self, start: float) -> bool:
        """After ``--seconds``, and once ``--min-hands`` were seen to end (at most ``--max-seconds``)."""
        elapsed = time.monotonic() - start
        hands = sum(len(t.finished) for t in self.tables)
        return elapsed >= self.args.max_seconds or (
            elapsed >= self.args.seconds and hands >= self.args.min_hands
        )

    async def fault(self, kind: str) -> None:
        fault = Fault(kind=kind, at=time.monotonic())
        self.faults.append(fault)
        print(f"[drill] {kind}", flush=True)
        if kind == "kill-web":
            index = self.rng.randrange(2)
            server = self.room.servers[index]
            if server is not None:
                server.kill()
            fault.detail = f"server {index}"
            await asyncio.sleep(2)
            await asyncio.to_thread(self.room.start_server, index)
        elif kind == "kill-worker":
            if self.room.worker is not None:
                self.room.worker.kill()
            await asyncio.sleep(2)
            await asyncio.to_thread(self.room.start_worker)
        elif kind == "flush":
            fault.detail = f"{delete_prefix(self.redis_url, self.prefix)} keys"
        elif kind == "flood":
            fault.detail = await self.flood()

    async def flood(self) -> str:
        server = self.room.live()[0]
        results = []
        for path, count, cookie in (
            (f"/ws/table/{self.tables[0].id}/", 2000, self.spectator_cookie),
            ("/ws/lobby/", 500, ""),
        ):
            code = None
            try:
                async with websockets.connect(
                    f"{server.ws_base}{path}",
                    origin=server.origin,  # type: ignore[arg-type]
                    additional_headers={"Cookie": cookie} if cookie else {},
                    proxy=None,
                    open_timeout=5,
                ) as ws:
                    try:
                        for _ in range(count):
                            await ws.send('{"verb": "sync"}')
                        while True:
                            await asyncio.wait_for(ws.recv(), 5)
                    except websockets.ConnectionClosed as closed:
                        code = closed.rcvd.code if closed.rcvd else None
            except (websockets.WebSocketException, TimeoutError, OSError):
                pass
            self.report.flood_closed_4008.append(code == 4008)
            results.append(f"{path}: closed {code}")
        return "; ".join(results)

    def judge_stalls(self, *, end: float) -> None:
        """A stall: a table with no new state for more than twice the turn time. Each counts
        against the latest fault before it began (or against no fault)."""
        limit = 2 * self.args.turn_seconds
        for table in self.tables:
            times = [*sorted(table.progress), end]
            for before, after in itertools.pairwise(times):
                gap = after - before
                if gap <= limit:
                    continue
                cause = next((f for f in reversed(self.faults) if f.at <= after), None)
                if cause is None:
                    self.report.stalls_without_fault += 1
                else:
                    cause.stalled.append(table.id)
                    cause.worst_gap = max(cause.worst_gap, gap)
                self.report.stalls += 1
            for fault in self.faults:
                after = [t for t in table.progress if t > fault.at]
                if after:
                    fault.worst_gap = max(fault.worst_gap, after[0] - fault.at)


def delete_prefix(url: str, prefix: str) -> int:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        return client.delete(*keys) if keys else 0
    finally:
        client.close()


def tracebacks(logs: list[Path]) -> list[str]:
    found = []
    for log in logs:
        text = log.read_text(errors="replace") if log.exists() else ""
        for match in re.finditer(r"Traceback \(most recent call last\):", text):
            found.append(f"{log.name}: {text[match.start() : match.start() + 1500]}")
    return found


async def drill(args: argparse.Namespace) -> Report:
    redis_url = args.redis_url
    prefix = f"svara:drill:{uuid.uuid4().hex}:"
    database_url = procs.fresh_database(args.database_url, stem="svara_drill")
    log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="svara-drill-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    env = procs.server_env(
        database_url=database_url,
        redis_url=redis_url,
        prefix=prefix,
        LIVE_TABLE_WORKER="1",
        WORKER_LEASE_SECONDS="4",
    )
    room = Room(env, log_dir)
    try:
        procs.manage(env, "migrate", "--noinput")
        for index in range(2):
            room.start_server(index)
        room.start_worker()
        run = Drill(args, room, env, redis_url, prefix)
        run.seed()
        before = run.chips()
        run.report.chips_before = {"players": before["players"], "house": before["house"]}
        await run.run()
        # Let the last hands settle before the books are read.
        await asyncio.sleep(args.turn_seconds + 5)
        after = run.chips()
        report = run.report
        report.chips_after = {"players": after["players"], "house": after["house"]}
        # No chips come in or go out during the run (no grants, no rake): the players hold what they
        # held, and the house what it held; the ledger's entries always sum to zero besides.
        report.chips_lost = before["players"] - after["players"]
        report.house_change = after["house"] - before["house"]
        report.audit_ok, report.audit = after["audit_ok"], after["audit"]
        report.hands_finished = after["hands"].get("finished", 0)
        report.hands_cancelled = after["hands"].get("cancelled", 0)
        report.hands_in_play = after["hands"].get("in_play", 0)
        report.faults = [asdict(f) | {"at": round(f.at - run.started, 1)} for f in run.faults]
        report.tracebacks = tracebacks(room.logs)
        return report
    finally:
        room.stop()
        delete_prefix(redis_url, prefix)
        procs.drop_database(database_url)


def print_report(report: Report) -> None:
    rows = [
        ("hands finished", report.hands_finished),
        ("hands cancelled by faults", report.hands_cancelled),
        ("players' chips before", report.chips_before.get("players", 0)),
        ("players' chips after", report.chips_after.get("players", 0)),
        ("chips lost", report.chips_lost),
        ("house's change", report.house_change),
        ("audit_chips", "clean" if report.audit_ok else "FAILED"),
        ("stalls past 2x the turn", report.stalls),
        ("frames with another's card", len(report.leaked_frames)),
        ("server tracebacks", len(report.tracebacks)),
        ("frames / moves / reconnects", f"{report.frames} / {report.moves_sent} / {report.reconnects}"),
        ("chat lines / leaves (--restless)", f"{report.chat_sent} / {report.leaves_sent}"),
        ("floods closed with 4008", f"{sum(report.flood_closed_4008)} of {len(report.flood_closed_4008)}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print()
    print(f"{'fault':<12} {'at s':>6} {'stalled':>8} {'worst gap s':>12}  detail")
    for fault in report.faults:
        stalled, gap = len(fault["stalled"]), fault["worst_gap"]
        print(f"{fault['kind']:<12} {fault['at']:>6} {stalled:>8} {gap:>12.1f}  {fault['detail']}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument(
        "--min-hands", type=int, default=0, help="play on past --seconds until this many hands ended"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=0, help="the longest a run may take (default: --seconds x 4)"
    )
    parser.add_argument("--fault-every", type=float, default=15)
    parser.add_argument("--turn-seconds", type=int, default=8)
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument(
        "--restless",
        action="store_true",
        help="players who chat, leave at any moment and sit again in another seat (3-seat tables)",
    )
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/svara"
    )
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/8")
    parser.add_argument("--log-dir", default="")
    parser.add_argument("--out", default=str(RESULTS / "drill.json"))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> Report:
    args = parse_args(argv)
    args.max_seconds = args.max_seconds or args.seconds * 4
    report = asyncio.run(drill(args))
    print_report(report)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(asdict(report) | {"args": vars(args)}, indent=2))
    print(f"\nwritten {out}")
    return report


if __name__ == "__main__":
    main()
