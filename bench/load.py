"""Load benchmark for the live tables: scripted players over real WebSockets against real servers.

For each server setup (one Daphne process; two Daphne processes, the two players of a table on
different ones) it starts the servers itself on Redis and a dedicated PostgreSQL database (created,
migrated and seeded with users, session cookies and tables, dropped at the end), seats two scripted
players at each of N tables and measures, per mode:

- paced: each player acts about a second (0.8-1.2 s) after its turn comes, as people do;
- unpaced: each player acts as soon as its turn arrives, to find the most the servers take.

Figures: actions per second, and the latency from sending an action to every player of the table
having the update (a frame with a newer version), p50/p95/p99. An update some player never receives
within 5 s is a loss (the player then asks for the table, as the page does on a gap). The same run
measures two bare relays (bench/relay.py: forward to the group, render one small template per
recipient) with the same players and sockets: the stack's own floor as it comes (``stock-relay``)
and as our consumers use it (``relay``), so our figures read as ratios to each.

With ``--via nginx`` (or ``both``, in turn with the direct setup) the players reach the servers
through the kit's nginx (deploy/nginx/svara.conf, TLS with a throwaway certificate, as
``python -m deploy.local`` runs it): both seats of a table through the one proxy, which spreads the
sockets over the servers. The servers run the production settings (DEBUG off, PUBLIC_URL, hashed
static files) either way; ``--rounds N`` runs every setup N times, in turn.

Players' script: raise by the minimum while the stake to match is at most --raise-to, then call
(heads-up, a call ends the betting: about 7 moves a hand), skip svara joins.

    python -m bench.load [--tables 200] [--unpaced-tables N] [--worker] [--seconds 20] [--repeat 1]
                         [--mode paced|unpaced|both] [--servers 1|2|both] [--apps svara,relay,stock-relay]
                         [--via direct|nginx|both] [--rounds 1]

``--worker`` serves the tables with the table worker (LIVE_TABLE_WORKER and one ``manage.py
run_table_clock`` beside the servers, its CPU reported apart); ``--unpaced-tables`` gives the
unpaced mode enough tables that the servers, not the game's pauses, set its rate.

Prints a table and writes bench/results/load.json. Needs PostgreSQL (--database-url, default
$DATABASE_URL or postgres://postgres@127.0.0.1:5432/svara; a fresh svara_bench_* database is made
next to it) and Redis (--redis-url, default redis://127.0.0.1:6379/8; the run's own key prefix keeps
its state and its channel layer's names apart from other servers on the same Redis).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from bench import harness as procs

RESULTS = Path(__file__).resolve().parent / "results"
LOSS_AFTER = 5.0  # seconds without the update: counted lost
# What each app runs (bench/relay.py tells the two relays apart).
APPLICATIONS = {
    "svara": "svara_site.asgi:application",
    "relay": "bench.relay_asgi:application",
    "stock-relay": "bench.relay_stock_asgi:application",
}
# The relays' settings; svara's are --settings.
SETTINGS = {"relay": "svara_site.settings", "stock-relay": "bench.settings_stock_relay"}
# Each relay, and the floor it is in the targets' names: the stack as our consumers use it, and as
# it comes (the targets' "bare stack", docs/performance.md).
RELAYS = {"relay": "tuned", "stock-relay": "stock"}
VERSION_RE = re.compile(r'data-version="(\d+)"')
EPOCH_RE = re.compile(r'data-epoch="([0-9a-z]*)"')
AMOUNT_RE = re.compile(r'name="amount" min="(\d+)"')
TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- what a frame says


def frame_version(frame: str) -> int:
    match = VERSION_RE.search(frame, 0, 600)  # the version div comes first
    return int(match.group(1)) if match else -1


def choose_move(frame: str, *, raise_to: int) -> tuple[str, int | None] | None:
    """The script's move for a frame that offers moves (buttons with class verb-<verb>), else None."""
    if 'class="verb-' not in frame:
        return None
    if "verb-raise" in frame:
        match = AMOUNT_RE.search(frame, frame.find('value="raise"'))
        if match and int(match.group(1)) <= raise_to:
            return "raise", int(match.group(1))
    for verb in ("call", "skip", "fold", "decline"):
        if f"verb-{verb}" in frame:
            return verb, None
    return None


# ---------------------------------------------------------------- players and tables


@dataclass
class Pending:
    """An action sent at ``version``: done when every seat of the table has a newer frame."""

    version: int
    sent: float
    waiting: set[int]


@dataclass
class Seat:
    table: TableRun
    index: int
    ws: ClientConnection | None = None
    version: int = -1
    epoch: str = ""  # the table's life the frames show: every move names it
    frame: str = ""
    acted_for: int = -1


@dataclass
class TableRun:
    id: int
    seats: list[Seat] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    dealt: bool = False  # a hand was dealt here (some seat was offered moves)


@dataclass
class Window:
    """What one measured window collected: the actions sent from ``start`` until ``end``, however
    late their updates arrive (an update still missing LOSS_AFTER seconds later is a loss)."""

    start: float
    end: float = float("inf")
    latencies: list[float] = field(default_factory=list)
    sent_per_second: dict[int, int] = field(default_factory=dict)
    losses: int = 0
    refused: int = 0
    frames: int = 0
    tables_moving: set[int] = field(default_factory=set)  # tables with a move measured in the window


class Players:
    """All scripted players of one setup, on one event loop."""

    def __init__(self, *, app: str, tables: list[int], raise_to: int, seed: int) -> None:
        self.app = app
        self.tables = [TableRun(id=t) for t in tables]
        for table in self.tables:
            table.seats = [Seat(table=table, index=i) for i in range(2)]
        self.raise_to = raise_to
        self.rng = random.Random(seed)
        self.mode = "paced"
        self.acting = False
        self.window: Window | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.sent = 0

    # ---- sockets

    async def connect(
        self,
        urls: list[str],
        origin: list[str],
        cookies: dict[tuple[int, int], str],
        options: dict[str, Any] | None = None,
    ) -> None:
        """Open every socket (a few at a time, as clients arrive), seat 0 on urls[0], seat 1 on urls[-1].
        ``options`` go to the connection (through nginx: its TLS context and address)."""
        gate = asyncio.Semaphore(25)

        async def one(seat: Seat) -> None:
            server = 0 if seat.index == 0 else len(urls) - 1
            url = urls[server].format(table=seat.table.id, seat=seat.index)
            headers = {"Cookie": cookies[(seat.table.id, seat.index)]} if cookies else {}
            async with gate:
                seat.ws = await websockets.connect(
                    url,
                    origin=origin[server],  # type: ignore[arg-type]
                    additional_headers=headers,
                    proxy=None,
                    compression=None,
                    open_timeout=60,
                    max_queue=None,
                    **(options or {}),
                )
            self._spawn(self._read(seat))

        await asyncio.gather(*(one(s) for t in self.tables for s in t.seats))

    async def close(self) -> None:
        await asyncio.gather(
            *(s.ws.close() for t in self.tables for s in t.seats if s.ws is not None), return_exceptions=True
        )
        for task in list(self.tasks):
            task.cancel()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _read(self, seat: Seat) -> None:
        assert seat.ws is not None
        try:
            async for message in seat.ws:
                self.on_frame(seat, message if isinstance(message, str) else message.decode())
        except websockets.ConnectionClosed:
            pass

    async def send(self, seat: Seat, fields: dict[str, Any]) -> None:
        assert seat.ws is not None
        await seat.ws.send(json.dumps({**fields, "HEADERS": {"HX-Request": "true"}}))

    # ---- frames in

    def on_frame(self, seat: Seat, frame: str) -> None:
        now = time.perf_counter()
        version = frame_version(frame)
        table = seat.table
        if self.window is not None:
            self.window.frames += 1
        if '<p class="error">' in frame and table.pending:
            # A refused action (it should not happen: one writer per turn): forget it and act again.
            for p in [p for p in table.pending if p.version >= version]:
                table.pending.remove(p)
                if self.window is not None:
                    self.window.refused += 1
            seat.acted_for = -1
        if version > seat.version:
            seat.version, seat.frame = version, frame
            epoch = EPOCH_RE.search(frame, 0, 600)
            seat.epoch = epoch.group(1) if epoch else ""
            for p in list(table.pending):
                if version > p.version:
                    p.waiting.discard(seat.index)
                    if not p.waiting:
                        table.pending.remove(p)
                        self._done(p, now, table=table.id)
        elif version == seat.version:
            seat.frame = frame
        self.consider(seat)

    def _done(self, p: Pending, now: float, *, table: int) -> None:
        if self.window is not None and self.window.start <= p.sent < self.window.end:
            self.window.latencies.append(now - p.sent)
            self.window.tables_moving.add(table)

    # ---- moves out

    def consider(self, seat: Seat) -> None:
        """Act if it is this seat's turn in its latest frame and it has not acted on that version."""
        if not self.acting or seat.version <= seat.acted_for:
            return
        move = choose_move(seat.frame, raise_to=self.raise_to)
        if move is None:
            return
        seat.table.dealt = True
        seat.acted_for = seat.version
        if self.mode == "paced":
            delay = self.rng.uniform(0.8, 1.2)
            asyncio.get_running_loop().call_later(delay, self._spawn_act, seat, seat.version, move)
        else:
            self._spawn_act(seat, seat.version, move)

    def _spawn_act(self, seat: Seat, version: int, move: tuple[str, int | None]) -> None:
        if self.acting and seat.version == version:  # a newer frame meanwhile: it decides instead
            self._spawn(self._act(seat, version, move))

    async def _act(self, seat: Seat, version: int, move: tuple[str, int | None]) -> None:
        verb, amount = move
        self.sent += 1
        fields: dict[str, Any] = {
            "verb": verb,
            "version": str(version),
            "epoch": seat.epoch,
            "action_id": f"b{self.sent}",
        }
        if amount is not None:
            fields["amount"] = str(amount)
        sent = time.perf_counter()
        seat.table.pending.append(Pending(version=version, sent=sent, waiting={0, 1}))
        window = self.window
        if window is not None and window.start <= sent < window.end:
            second = int(sent - window.start)
            window.sent_per_second[second] = window.sent_per_second.get(second, 0) + 1
        await self.send(seat, fields)

    async def all_dealt(self, *, timeout: float) -> float:
        """Wait until every table dealt its first hand; the seconds it took (sitting 400 players, ...)."""
        start = time.perf_counter()
        while not all(t.dealt for t in self.tables) and time.perf_counter() - start < timeout:
            await asyncio.sleep(0.1)
        return time.perf_counter() - start

    def kick(self) -> None:
        for table in self.tables:
            for seat in table.seats:
                self.consider(seat)

    async def sweep(self) -> None:
        """Updates not received within LOSS_AFTER are losses; the player then asks for the table."""
        while True:
            await asyncio.sleep(0.5)
            now = time.perf_counter()
            for table in self.tables:
                for p in [p for p in table.pending if now - p.sent > LOSS_AFTER]:
                    table.pending.remove(p)
                    if self.window is not None and self.window.start <= p.sent < self.window.end:
                        self.window.losses += 1
                    for index in p.waiting:
                        if self.app == "svara":
                            self._spawn(self.send(table.seats[index], {"verb": "sync"}))


# ---------------------------------------------------------------- servers


@dataclass
class Row:
    app: str
    servers: int
    mode: str
    tables: int
    sockets: int
    seconds: float
    actions: int
    actions_per_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    peak_per_s: int  # the most actions sent in one second of the window: how even the load was
    lost: int
    refused: int
    server_cpu_pct: list[float]
    client_cpu_pct: float
    ramp_s: float = 0.0  # from the first sit to every table's first deal (first window only)
    worker_cpu_pct: float = 0.0  # the table worker's (--worker), beside the servers' own
    load_avg: float = 0.0  # the machine's 1-minute load average at the end of the window
    via: str = "direct"  # "nginx": the players reach the servers through the kit's nginx (TLS)
    proxy_cpu_pct: float = 0.0  # nginx's (master and workers), with --via nginx
    # Tables with at least one move measured in the window: fewer than ``tables`` means some sat
    # idle (waiting out a pause the whole window, or stuck), so the rate is not the servers' limit.
    tables_moving: int = 0
    pause_ms: int | None = None  # the hands' pauses, when --pause-ms shortened them


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@contextmanager
def bench_database(base_url: str) -> Iterator[str]:
    env_for = lambda url: procs.server_env(database_url=url, redis_url=None, prefix="-")  # noqa: E731
    with procs.dedicated_database(base_url, stem="svara_bench", env_for=env_for) as url:
        yield url


def seed(env: dict[str, str], tables: int, tag: str) -> tuple[list[int], dict[tuple[int, int], str]]:
    """Tables and two players each, with session cookies (made by Django's SessionStore)."""
    names = [f"{tag}t{i}p{s}" for i in range(tables) for s in range(2)]
    table = {"name": "bench", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 60}
    made = procs.django_call(env, "seed", players=names, tables=[table] * tables)
    cookies = {
        (made["tables"][i], s): made["users"][f"{tag}t{i}p{s}"]["cookie"]
        for i in range(tables)
        for s in range(2)
    }
    return made["tables"], cookies


async def measure(
    players: Players,
    servers: list[procs.Daphne],
    *,
    worker: procs.TableWorker | None = None,
    mode: str,
    warmup: float,
    seconds: float,
    profile: Path | None,
    proxy_pids: list[int] | None = None,
) -> Row:
    # The tables play on between windows of a mode. Stopping them and starting them again
    # together (as this bench once did) put all of them in step: every table's player acted in
    # the same second, then all waited out the same showdown pause, and the load came in waves
    # of 20 and 180 moves a second around an average of 100. Their starts are spread over one
    # hand's length (start_tables); a busy server still draws them together (peak/s shows it).
    if players.mode != mode or not players.acting:
        players.mode, players.acting = mode, True
        players.kick()
    await asyncio.sleep(warmup)
    profiled = [(f"{s.port}", s) for s in servers] + ([("worker", worker)] if worker else [])
    spies = [_py_spy(process, profile, seconds, name=name) for name, process in profiled] if profile else []
    pids = [s.proc.pid for s in servers] + ([worker.proc.pid] if worker else [])
    proxy = proxy_pids or []
    proxy0 = sum(cpu_seconds(pid) for pid in proxy)
    cpu0, client0, t0 = [cpu_seconds(pid) for pid in pids], client_cpu(), time.perf_counter()
    window = players.window = Window(start=t0)
    await asyncio.sleep(seconds)
    cpu1, client1, t1 = [cpu_seconds(pid) for pid in pids], client_cpu(), time.perf_counter()
    proxy1 = sum(cpu_seconds(pid) for pid in proxy)
    window.end = t1  # actions sent from now on are not this window's; those sent before still count
    await asyncio.sleep(LOSS_AFTER + 1)  # let the window's last actions arrive or count as lost
    players.window = None
    for spy in spies:
        spy.wait(timeout=60)
    elapsed = t1 - t0
    lat = [x * 1000 for x in window.latencies]
    return Row(
        app=players.app,
        servers=len(servers),
        mode=mode,
        tables=len(players.tables),
        sockets=2 * len(players.tables),
        seconds=round(elapsed, 2),
        actions=len(lat),
        actions_per_s=round(len(lat) / elapsed, 1),
        p50_ms=round(percentile(lat, 50), 2),
        p95_ms=round(percentile(lat, 95), 2),
        p99_ms=round(percentile(lat, 99), 2),
        max_ms=round(max(lat, default=float("nan")), 2),
        peak_per_s=max(window.sent_per_second.values(), default=0),
        lost=window.losses,
        refused=window.refused,
        server_cpu_pct=[round(100 * (b - a) / elapsed, 1) for a, b in zip(cpu0, cpu1)][: len(servers)],
        worker_cpu_pct=round(100 * (cpu1[-1] - cpu0[-1]) / elapsed, 1) if worker else 0.0,
        proxy_cpu_pct=round(100 * (proxy1 - proxy0) / elapsed, 1),
        client_cpu_pct=round(100 * (client1 - client0) / elapsed, 1),
        load_avg=os.getloadavg()[0],
        tables_moving=len(window.tables_moving),
    )


def _py_spy(process: procs.Process, directory: Path, seconds: float, *, name: str) -> subprocess.Popen[bytes]:
    """py-spy on a server (``name``: its port) or the table worker, for the window's length."""
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / f"py-spy-{name}-{int(time.time())}.txt"
    command = [str(procs.BIN / "py-spy"), "record", "--nonblocking", "--format", "raw", "-r", "200"]
    command += ["-d", str(int(seconds))]
    return subprocess.Popen(
        [*command, "-p", str(process.proc.pid), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


BENCH_HOST = "bench.svara.test"


@dataclass
class BenchSite:
    """What every server of a run shares: the production settings' variables (DEBUG off, a key,
    PUBLIC_URL, collected static files) and, for ``--via nginx``, the kit's nginx in front."""

    workdir: Path
    port: int
    env: dict[str, str]

    @classmethod
    def make(cls, database_url: str, redis_url: str) -> BenchSite:
        from deploy.local import free_port, make_certificate

        workdir = Path(tempfile.mkdtemp(prefix="svara-bench-site-"))
        port = free_port()
        env = {
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "PUBLIC_URL": f"https://{BENCH_HOST}:{port}",
            "STATIC_ROOT": str(workdir / "static"),
            "SVARA_VAR_DIR": str(workdir / "var"),
        }
        site = cls(workdir=workdir, port=port, env=env)
        collect = procs.server_env(
            database_url=database_url, redis_url=redis_url, prefix="-", settings="svara_site.settings", **env
        )
        procs.manage(collect, "collectstatic", "--noinput", "-v", "0")
        make_certificate(workdir / "tls", BENCH_HOST)
        return site

    @property
    def host(self) -> str:
        return BENCH_HOST

    @property
    def public_url(self) -> str:
        return self.env["PUBLIC_URL"]

    @contextmanager
    def front(
        self, servers: list[procs.Daphne], *, logs: Path, wanted: bool
    ) -> Iterator[tuple[dict[str, Any], list[int]] | None]:
        """nginx in front of ``servers`` (the connection options that reach it and nginx's
        processes), or None."""
        if not wanted:
            yield None
            return
        import ssl

        from deploy.local import nginx_in_front

        nginx_dir = Path(tempfile.mkdtemp(prefix="svara-bench-nginx-"))
        shutil.copytree(self.workdir / "tls", nginx_dir / "tls")
        try:
            with nginx_in_front(
                public_url=self.public_url,
                web_ports=tuple(s.port for s in servers),
                static_root=self.workdir / "static",
                tls=nginx_dir / "tls",
                workdir=nginx_dir,
                logs=logs,
            ) as (nginx, _site):
                context = ssl.create_default_context(cafile=str(nginx_dir / "tls" / "ca.pem"))
                master = nginx.proc.pid
                children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
                yield {"ssl": context, "host": "127.0.0.1", "port": self.port}, [master, *map(int, children)]
        finally:
            shutil.rmtree(nginx_dir, ignore_errors=True)


async def run_setup(
    *,
    app: str,
    count: int,
    modes: list[str],
    tables: int,
    args: argparse.Namespace,
    database_url: str,
    log_dir: Path,
    site: BenchSite,
    via: str = "direct",
) -> list[Row]:
    prefix = f"svara:bench:{uuid.uuid4().hex[:8]}:"
    env = procs.server_env(
        database_url=database_url,
        redis_url=args.redis_url,
        prefix=prefix,
        settings=SETTINGS.get(app, args.settings),
        **site.env,
        **({"LIVE_TABLE_WORKER": "1"} if args.worker and app == "svara" else {}),
        **(pause_env(args.pause_ms) if app == "svara" else {}),
    )
    if app == "svara":
        table_ids, cookies = seed(env, tables, tag=uuid.uuid4().hex[:6])
        path = "/ws/table/{table}/"
    else:
        table_ids, cookies = list(range(1, tables + 1)), {}
        path = "/ws/relay/{table}/{seat}/"
    asgi = APPLICATIONS[app]
    players = Players(app=app, tables=table_ids, raise_to=args.raise_to, seed=args.seed)
    rows: list[Row] = []
    logs = log_dir / f"{app}-{count}-{via}"
    with (
        procs.servers(count, env=env, log_dir=logs, app=asgi) as servers,
        table_worker(env, logs, wanted=args.worker and app == "svara") as worker,
        site.front(servers, logs=logs, wanted=via == "nginx") as front,
    ):
        try:
            if front is None:
                urls, origins = [s.ws_base + path for s in servers], [site.public_url] * len(servers)
                await players.connect(urls, origins, cookies)
            else:  # both seats through nginx, which spreads the sockets over the servers
                url = f"wss://{site.host}:{site.port}{path}"
                await players.connect([url], [site.public_url], cookies, options=front[0])
            sweeper = asyncio.get_running_loop().create_task(players.sweep())
            # Acting from the first sit: a table dealt while others still wait to start plays at once.
            players.mode, players.acting = modes[0], True
            first_sit = time.perf_counter()
            await start_tables(players, spread=args.spread)
            await players.all_dealt(timeout=180)
            ramp = time.perf_counter() - first_sit
            for mode in modes:
                for _ in range(args.repeat):
                    row = await measure(
                        players,
                        servers,
                        worker=worker,
                        mode=mode,
                        warmup=args.warmup,
                        seconds=args.seconds,
                        profile=args.profile,
                        proxy_pids=front[1] if front else None,
                    )
                    row.ramp_s, ramp = round(ramp, 1), 0.0
                    row.via = via
                    row.pause_ms = args.pause_ms if app == "svara" else None
                    print(format_row(row), flush=True)
                    rows.append(row)
            sweeper.cancel()
        finally:
            players.acting = False
            await players.close()
            _delete_prefix(args.redis_url, prefix)
    return rows


@contextmanager
def table_worker(env: dict[str, str], log_dir: Path, *, wanted: bool) -> Iterator[procs.TableWorker | None]:
    """The table worker beside the servers (``--worker``), or None."""
    if not wanted:
        yield None
        return
    worker = procs.TableWorker.start(env=env, log=log_dir / "worker.log")
    try:
        yield worker
    finally:
        worker.stop()


async def start_tables(players: Players, *, spread: float) -> None:
    """Each table starts at a random moment within ``spread`` seconds. Real tables: both players
    sit (the first hand deals ~3 s later). Relay: seat 0 says go.

    Why spread: a hand takes about as long at every table (the moves, then the fixed pauses of
    the showdown and the deal), so tables that start together stay together. Sitting everyone
    down at once started them within the few seconds the server took for the 400 sits, and a
    60 s window saw the load swing between 25 and 190 moves a second around 126 all along. In a
    room, tables open at any time; spread over one hand's length, their moves come at random
    moments, and what draws them together after that is the server's own doing (peak/s)."""

    async def start(table: TableRun, delay: float) -> None:
        await asyncio.sleep(delay)
        for seat in table.seats:
            if players.app == "svara":
                await players.send(seat, {"verb": "sit", "position": str(seat.index), "buy_in": "1000"})
            elif seat.index == 0:
                await players.send(seat, {"verb": "go", "version": "0"})

    await asyncio.gather(*(start(table, players.rng.uniform(0, spread)) for table in players.tables))


def _delete_prefix(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


# ---------------------------------------------------------------- report


HEADER = (
    f"{'app':<11} {'proc':>4} {'mode':<8} {'tables':>6} {'act/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
    f"{'p99 ms':>7} {'max ms':>7} {'peak/s':>6} {'lost':>5} {'refused':>7} {'server cpu %':>14} "
    f"{'client %':>8} {'ramp s':>6} {'load':>5} {'worker %':>8} {'nginx %':>7} {'moving':>6}"
)


def format_row(r: Row) -> str:
    cpu = "+".join(f"{c:.0f}" for c in r.server_cpu_pct)
    name = r.app + ("+nginx" if r.via == "nginx" else "")
    return (
        f"{name:<11} {r.servers:>4} {r.mode:<8} {r.tables:>6} {r.actions_per_s:>7.1f} {r.p50_ms:>7.1f} "
        f"{r.p95_ms:>7.1f} {r.p99_ms:>7.1f} {r.max_ms:>7.1f} {r.peak_per_s:>6} {r.lost:>5} {r.refused:>7} "
        f"{cpu:>14} {r.client_cpu_pct:>8.0f} {r.ramp_s:>6.1f} {r.load_avg:>5.1f} {r.worker_cpu_pct:>8.0f}"
        f" {r.proxy_cpu_pct:>7.0f} {r.tables_moving:>6}"
    )


def pause_env(pause_ms: int | None) -> dict[str, str]:
    """The servers' and the worker's variables for --pause-ms: the deal's and the result's pauses."""
    if pause_ms is None:
        return {}
    return {"LIVE_START_DELAY_MS": str(pause_ms), "LIVE_SHOWDOWN_PAUSE_MS": str(pause_ms)}


def medians(rows: list[Row]) -> list[Row]:
    """One row per app, setup and mode: the median of its windows (losses and refusals summed).

    This machine is shared and noisy: single windows of the same code differ by a fifth."""
    groups: dict[tuple[str, int, str, str], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.app, r.servers, r.mode, r.via), []).append(r)
    out = []
    for group in groups.values():

        def mid(name: str, group: list[Row] = group) -> float:
            return round(statistics.median(getattr(r, name) for r in group), 2)

        first = group[0]
        out.append(
            Row(
                app=first.app,
                servers=first.servers,
                mode=first.mode,
                tables=first.tables,
                sockets=first.sockets,
                seconds=round(sum(r.seconds for r in group), 2),
                actions=sum(r.actions for r in group),
                actions_per_s=mid("actions_per_s"),
                p50_ms=mid("p50_ms"),
                p95_ms=mid("p95_ms"),
                p99_ms=mid("p99_ms"),
                max_ms=max(r.max_ms for r in group),
                peak_per_s=max(r.peak_per_s for r in group),
                lost=sum(r.lost for r in group),
                refused=sum(r.refused for r in group),
                server_cpu_pct=[
                    round(statistics.median(r.server_cpu_pct[i] for r in group), 1)
                    for i in range(len(first.server_cpu_pct))
                ],
                client_cpu_pct=mid("client_cpu_pct"),
                ramp_s=first.ramp_s,
                load_avg=mid("load_avg"),
                worker_cpu_pct=mid("worker_cpu_pct"),
                via=first.via,
                proxy_cpu_pct=mid("proxy_cpu_pct"),
                tables_moving=int(mid("tables_moving")),
                pause_ms=first.pause_ms,
            )
        )
    return out


def ratios(rows: list[Row]) -> list[dict[str, Any]]:
    """Our figures over each relay's, per setup and mode."""
    out = []
    for r in rows:
        if r.app != "svara" or r.via != "direct":
            continue
        for relay in (x for x in rows if x.app in RELAYS and (x.servers, x.mode) == (r.servers, r.mode)):
            if not relay.actions_per_s:
                continue
            out.append(_ratio(r, relay))
    return out


def _ratio(r: Row, relay: Row) -> dict[str, Any]:
    return {
        "relay": relay.app,
        "servers": r.servers,
        "mode": r.mode,
        "actions_per_s_ratio": round(r.actions_per_s / relay.actions_per_s, 2),
        "p50_ratio": round(r.p50_ms / relay.p50_ms, 2) if relay.p50_ms else None,
        "p99_ratio": round(r.p99_ms / relay.p99_ms, 2) if relay.p99_ms else None,
    }


def verdicts(rows: list[Row]) -> dict[str, Any]:
    """The speed targets (docs/performance.md), where this run measured what they need."""
    out: dict[str, Any] = {}
    proxied = [r for r in rows if r.via == "nginx"]
    rows = [r for r in rows if r.via == "direct"]
    for n in (1, 2):
        for mode in ("paced", "unpaced"):
            direct = next((r for r in rows if (r.app, r.servers, r.mode) == ("svara", n, mode)), None)
            nginx = next((r for r in proxied if (r.servers, r.mode) == (n, mode)), None)
            if direct and nginx and mode == "paced":
                out[f"paced_{n}_process_nginx_adds_at_most_5ms_to_p99"] = nginx.p99_ms <= direct.p99_ms + 5
            if direct and nginx and mode == "unpaced":
                out[f"unpaced_{n}_process_nginx_costs_at_most_10pct"] = (
                    nginx.actions_per_s >= 0.9 * direct.actions_per_s
                )
    paced = next((r for r in rows if (r.app, r.servers, r.mode) == ("svara", 1, "paced")), None)
    if paced is not None and paced.tables >= 200:
        out["paced_1_process_p99_under_50ms_no_loss"] = paced.p99_ms < 50 and paced.lost == 0
    for n in (1, 2):
        ours = next((r for r in rows if (r.app, r.servers, r.mode) == ("svara", n, "unpaced")), None)
        for app, floor in RELAYS.items():
            relay = next((r for r in rows if (r.app, r.servers, r.mode) == (app, n, "unpaced")), None)
            if ours and relay:
                out[f"unpaced_{n}_process_at_least_half_the_{floor}_relay"] = (
                    ours.actions_per_s >= relay.actions_per_s / 2
                )
    return out


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument(
        "--unpaced-tables",
        type=int,
        default=0,
        help="tables for the unpaced mode (default --tables): enough that the servers, not the pauses, limit",
    )
    parser.add_argument("--seconds", type=float, default=20, help="measured seconds per mode")
    parser.add_argument("--warmup", type=float, default=6, help="seconds before each measured window")
    parser.add_argument("--mode", choices=["paced", "unpaced", "both"], default="both")
    parser.add_argument(
        "--spread", type=float, default=12, help="seconds over which the tables start (about one hand)"
    )
    parser.add_argument("--servers", choices=["1", "2", "both"], default="both")
    parser.add_argument(
        "--apps", default=",".join(APPLICATIONS), help=f"which of {','.join(APPLICATIONS)} to run"
    )
    parser.add_argument("--raise-to", type=int, default=60, help="raise while the minimum is at most this")
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/svara"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--profile", type=Path, default=None, help="py-spy raw profiles of each window here")
    parser.add_argument("--settings", default="svara_site.settings", help="settings of the svara servers")
    parser.add_argument(
        "--worker",
        action="store_true",
        help="svara with the table worker (LIVE_TABLE_WORKER, one run_table_clock beside the servers)",
    )
    parser.add_argument(
        "--via",
        choices=["direct", "nginx", "both"],
        default="direct",
        help="players reach the servers directly, through the kit's nginx (TLS), or both in turn",
    )
    parser.add_argument(
        "--pause-ms",
        type=int,
        default=None,
        help="shorten the hands' fixed pauses (the deal's 3 s, the result's 4 s) to this many ms each",
    )
    parser.add_argument("--rounds", type=int, default=1, help="run every setup this many times, in turn")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--repeat", type=int, default=1, help="measured windows per mode; figures are their medians"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "load.json")
    return parser.parse_args(argv)


async def main_async(args: argparse.Namespace) -> list[Row]:
    modes = ["paced", "unpaced"] if args.mode == "both" else [args.mode]
    counts = [1, 2] if args.servers == "both" else [int(args.servers)]
    apps = [a for a in args.apps.split(",") if a]
    rows: list[Row] = []
    print(HEADER, flush=True)
    vias = ["direct", "nginx"] if args.via == "both" else [args.via]
    with bench_database(args.database_url) as database_url:
        log_dir = Path(tempfile.mkdtemp(prefix="svara-bench-"))
        site = BenchSite.make(database_url, args.redis_url)
        try:
            # Rounds alternate the setups (direct, nginx, direct, nginx...): the machine drifts.
            for _ in range(args.rounds):
                for count in counts:
                    for app in apps:
                        for via in vias if app == "svara" else ["direct"]:
                            for tables, these in _table_counts(modes, args):
                                rows += await run_setup(
                                    app=app,
                                    count=count,
                                    modes=these,
                                    tables=tables,
                                    args=args,
                                    database_url=database_url,
                                    log_dir=log_dir,
                                    site=site,
                                    via=via,
                                )
        finally:
            shutil.rmtree(site.workdir, ignore_errors=True)
    return rows


def _table_counts(modes: list[str], args: argparse.Namespace) -> list[tuple[int, list[str]]]:
    """The modes to run on each number of tables: all on --tables, unless --unpaced-tables
    gives unpaced its own (then a setup of its own)."""
    unpaced = args.unpaced_tables or args.tables
    if unpaced == args.tables or "unpaced" not in modes:
        return [(args.tables, modes)]
    paced = [m for m in modes if m != "unpaced"]
    return ([(args.tables, paced)] if paced else []) + [(unpaced, ["unpaced"])]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rows = asyncio.run(main_async(args))
    summary = medians(rows)
    if args.repeat > 1:
        print(f"\nmedians of {args.repeat} windows each")
        print(HEADER)
        for row in summary:
            print(format_row(row))
    result = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "settings": {k: str(v) for k, v in vars(args).items()},
        "rows": [asdict(r) for r in rows],
        "medians": [asdict(r) for r in summary],
        "ratios_to_relay": ratios(summary),
        "targets": verdicts(summary),
        "median_latency_ms": {f"{r.app}-{r.servers}-{r.mode}": r.p50_ms for r in summary},
    }
    print()
    for ratio in result["ratios_to_relay"]:
        print(
            f"svara/{ratio['relay']}, {ratio['servers']} process(es), {ratio['mode']}: "
            f"actions/s x{ratio['actions_per_s_ratio']}, "
            f"p50 x{ratio['p50_ratio']}, p99 x{ratio['p99_ratio']}"
        )
    for name, ok in result["targets"].items():
        print(f"target {name}: {'met' if ok else 'MISSED'}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
