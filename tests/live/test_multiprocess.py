"""Two real Daphne processes on one Redis and one PostgreSQL database, players on real WebSockets.

Nothing here goes through ``WebsocketCommunicator``: the servers are subprocesses (bench/harness.py),
players are ``websockets`` clients, and the database is a dedicated one (created and migrated for
this module, dropped afterwards), because the pytest test database is invisible to other processes.

Every frame any player receives goes through ``hidden_cards_seen``: another player's cards may show
only once a hand is over and only for the hands shown down.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import websockets
from websockets.asyncio.client import ClientConnection

from bench import harness as procs
from bench.frames import (  # noqa: F401  (other tests import these from here)
    OVER_RE,
    VERSION_RE,
    _region,
    face_up,
    hand_in_play,
    hidden_cards_seen,
    moves,
    others_shown,
    seat_blocks,
    seat_cards,
)

# Server processes outlive single tests; give the module room beyond the suite's default.
pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(120)]


# ---------------------------------------------------------------- players over real sockets


@dataclass
class Player:
    """One user; one socket at a time; every frame kept and checked for hidden cards."""

    name: str
    user_id: int
    cookie: str
    frames: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    ws: ClientConnection | None = None
    reader: asyncio.Task[None] | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    counter: int = 0

    async def connect(self, server: procs.Daphne, table_id: int) -> None:
        self.ws = await websockets.connect(
            f"{server.ws_base}/ws/table/{table_id}/",
            origin=server.origin,  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie},
            proxy=None,
            open_timeout=10,
        )
        seen = len(self.frames)  # frames of an earlier socket do not count
        self.reader = asyncio.create_task(self._read(self.ws))
        await self.until(lambda f: len(self.frames) > seen, what="the whole table on connect")
        assert VERSION_RE.search(self.frames[seen]), self.frames[seen][:300]

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for message in ws:
                frame = message if isinstance(message, str) else message.decode()
                where = f"{self.name}, frame {len(self.frames)}"
                self.leaks += [f"{where}: {problem}" for problem in hidden_cards_seen(frame)]
                self.frames.append(frame)
                self.arrived.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.arrived.set()  # a waiter must see the close

    @property
    def last(self) -> str:
        return self.frames[-1] if self.frames else ""

    @property
    def version(self) -> tuple[int, str]:
        match = VERSION_RE.search(self.last)
        assert match, self.last[:300]
        return int(match.group(1)), match.group(2)

    async def until(self, predicate: Callable[[str], bool], *, what: str, timeout: float = 10) -> str:
        """Wait for a frame (the latest one counts) that satisfies ``predicate``."""

        async def wait() -> str:
            while True:
                self.arrived.clear()
                if self.frames and predicate(self.last):
                    return self.last
                if self.reader is not None and self.reader.done():
                    raise AssertionError(f"{self.name}'s socket closed while waiting for {what}")
                await self.arrived.wait()

        try:
            return await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            last = self.last[-600:]
            raise AssertionError(f"{self.name}: no frame with {what} in {timeout} s; last: {last}") from None

    async def send(self, **fields: Any) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps({**fields, "HEADERS": {"HX-Request": "true"}}))

    async def act(self, verb: str, amount: int | None = None) -> None:
        """A move stamped with the version and epoch this socket last saw and a fresh action id."""
        version, epoch = self.version
        self.counter += 1
        action_id = f"{self.name}-{self.counter}"
        fields = {"verb": verb, "version": str(version), "epoch": epoch, "action_id": action_id}
        if amount is not None:
            fields["amount"] = str(amount)
        await self.send(**fields)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.wait_for(self.reader, 10)

    def assert_no_leaks(self) -> None:
        assert not self.leaks, self.leaks


async def to_act(players: list[Player], *, timeout: float = 10) -> Player:
    """The player whose latest frame offers moves (the hand starts on its own timer)."""

    async def first() -> Player:
        while True:
            for p in players:
                if moves(p.last):
                    return p
            await asyncio.wait(
                [asyncio.create_task(p.arrived.wait()) for p in players], return_when=asyncio.FIRST_COMPLETED
            )
            for p in players:
                p.arrived.clear()

    return await asyncio.wait_for(first(), timeout)


# ---------------------------------------------------------------- the cluster


@dataclass
class Cluster:
    """Two Daphne processes sharing one database, one Redis and one state-key prefix."""

    env: dict[str, str]
    redis_url: str
    prefix: str
    servers: list[procs.Daphne]

    def seed(self, names: list[str], **table: Any) -> tuple[int, list[Player]]:
        tag = uuid.uuid4().hex[:6]
        made = procs.django_call(self.env, "seed", players=[f"{n}{tag}" for n in names], tables=[table])
        players = [
            Player(name=name, user_id=user["id"], cookie=user["cookie"])
            for name, user in made["users"].items()
        ]
        return made["tables"][0], players

    def facts(self, table_id: int, players: list[Player]) -> dict[str, Any]:
        return procs.django_call(self.env, "facts", table=table_id, users=[p.user_id for p in players])


class ClusterHolder:
    """Module-wide: the database and the servers, started on first use, restarted when killed."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.database_url: str | None = None
        self.cluster: Cluster | None = None
        self.restarts = 0

    def ensure(self, *, base_database_url: str, redis_url: str) -> Cluster:
        if self.cluster is None:
            prefix = f"svara:mp:{uuid.uuid4().hex}:"
            self.database_url = procs.fresh_database(base_database_url, stem="svara_mp")
            env = procs.server_env(database_url=self.database_url, redis_url=redis_url, prefix=prefix)
            procs.manage(env, "migrate", "--noinput")
            self.cluster = Cluster(env=env, redis_url=redis_url, prefix=prefix, servers=[])
        cluster = self.cluster
        for i in range(2):
            if i < len(cluster.servers) and cluster.servers[i].alive:
                continue
            self.restarts += 1
            server = procs.Daphne.start(env=cluster.env, log=self.log_dir / f"daphne-{i}-{self.restarts}.log")
            if i < len(cluster.servers):
                cluster.servers[i] = server
            else:
                cluster.servers.append(server)
        return cluster

    def close(self) -> None:
        if self.cluster is not None:
            for server in self.cluster.servers:
                server.stop()
            delete_prefix(self.cluster.redis_url, self.cluster.prefix)
        if self.database_url is not None:
            procs.drop_database(self.database_url)


def delete_prefix(url: str, prefix: str) -> int:
    """Everything the store holds under ``prefix``: what a FLUSHDB would take from these servers."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        return client.delete(*keys) if keys else 0
    finally:
        client.close()


@pytest.fixture(scope="module")
def cluster_holder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterHolder]:
    holder = ClusterHolder(tmp_path_factory.mktemp("daphne"))
    try:
        yield holder
    finally:
        holder.close()


@pytest.fixture
def cluster(redis_url: str, postgres_db: None, cluster_holder: ClusterHolder) -> Iterator[Cluster]:
    """The servers, checked after the test: a server that died on its own fails the test."""
    started = cluster_holder.ensure(base_database_url=os.environ["DATABASE_URL"], redis_url=redis_url)
    yield started
    for server in started.servers:
        if server.proc.returncode not in (None, -9):
            pytest.fail(f"daphne on {server.port} exited with {server.proc.returncode}:\n{server.tail()}")


@pytest.fixture
def stack(settings: Any, cluster: Cluster) -> Callable[..., Any]:
    """Stack the next hand's deck through the test hook, on the servers' Redis and key prefix."""
    from games.live import testing

    settings.REDIS_URL = cluster.redis_url
    settings.LIVE_STATE_PREFIX = cluster.prefix

    async def stack_decks(table_id: int, decks: list[list[str]]) -> None:
        await testing.stack_decks(table_id=table_id, decks=decks)

    return stack_decks


def deck(*hands: str) -> list[str]:
    """Deal these hands in dealing order (left of the dealer first); the rest of the deck follows."""
    cards = [h.split() for h in hands]
    return [cards[p][k] for k in range(3) for p in range(len(cards))]


async def sit_both(a: Player, b: Player) -> None:
    """Both sit down (each on their own socket); each sees the other arrive."""
    await a.send(verb="sit", position="0", buy_in="500", action_id=f"{a.name}-sit")
    await b.until(lambda f: f"{a.name} sits down" in f, what=f"{a.name} sitting down")
    await b.send(verb="sit", position="1", buy_in="500", action_id=f"{b.name}-sit")
    await a.until(lambda f: f"{b.name} sits down" in f, what=f"{b.name} sitting down")


def hand_over(frame: str) -> bool:
    return bool(OVER_RE.search(_region(frame, "table-pot")))


async def close_all(*players: Player) -> None:
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)


# ---------------------------------------------------------------- the tests


async def test_players_on_two_processes_finish_a_hand(cluster: Cluster, stack: Callable[..., Any]) -> None:
    table_id, (ann, bob) = cluster.seed(["ann", "bob"], dark_play=False)
    a_server, b_server = cluster.servers
    try:
        await ann.connect(a_server, table_id)
        await bob.connect(b_server, table_id)
        # Whoever sits left of the (drawn) dealer gets 27 points and acts first.
        await stack(table_id, [deck("7C 8C 8D", "AH KH 9S")])
        await sit_both(ann, bob)
        first = await to_act([ann, bob], timeout=10)  # the start timer deals ~3 s after the 2nd sits
        second = bob if first is ann else ann
        await first.act("raise", 30)
        await second.until(lambda f: "call" in moves(f), what="a call to make")
        await second.act("call")
        for p in (ann, bob):
            await p.until(hand_over, what="the result")
        # Both saw the showdown: both hands face up, from the other process too.
        assert others_shown(ann.last) == {1} and others_shown(bob.last) == {0}
        facts = cluster.facts(table_id, [ann, bob])
        assert facts["seats"] == {str(first.user_id): 540, str(second.user_id): 460}
        assert facts["wallets"] == {str(ann.user_id): 500, str(bob.user_id): 500}
        hand = next(h for h in facts["hands"] if h["number"] == 1)  # the next may have begun
        assert (hand["status"], hand["pot"], hand["winner"]) == ("finished", 80, first.user_id)
        assert len(hand["shown"]) == 2
        assert facts["audit_ok"], facts["audit"]
        ann.assert_no_leaks()
        bob.assert_no_leaks()
    finally:
        await close_all(ann, bob)


async def test_killed_process_players_reconnect_to_the_other_and_finish(cluster: Cluster) -> None:
    # Short turns: the surviving process's clock must time out the last player.
    table_id, (ann, bob) = cluster.seed(["ann", "bob"], dark_play=False, turn_seconds=4)
    doomed, survivor = cluster.servers
    try:
        await ann.connect(doomed, table_id)
        await bob.connect(survivor, table_id)
        await sit_both(ann, bob)
        first = await to_act([ann, bob], timeout=10)
        second = bob if first is ann else ann
        await first.act("raise", 30)
        await second.until(lambda f: "raise" in moves(f), what="a raise to answer")
        own_cards = len(seat_cards(ann.last)[0][1])
        assert own_cards == 3

        doomed.kill()
        await asyncio.wait_for(ann.reader, 10)  # type: ignore[arg-type]  # ann's socket dropped
        frames_before = len(ann.frames)
        await ann.connect(survivor, table_id)
        # The whole table again, own cards included, the hand still in play.
        assert len(seat_cards(ann.frames[frames_before])[0][1]) == 3
        assert hand_in_play(ann.frames[frames_before])

        await second.until(lambda f: "raise" in moves(f), what="the raise still to answer")
        await second.act("raise", 60)
        # `first` does not answer: the survivor's clock folds them after 4 s.
        for p in (ann, bob):
            await p.until(hand_over, what="the result after the timeout", timeout=15)
        assert f"{first.name} ran out of time" in second.last
        facts = cluster.facts(table_id, [ann, bob])
        assert facts["seats"] == {str(first.user_id): 460, str(second.user_id): 540}
        hand = next(h for h in facts["hands"] if h["number"] == 1)  # the next may have begun
        assert (hand["status"], hand["winner"], hand["shown"]) == ("finished", second.user_id, [])
        assert facts["audit_ok"], facts["audit"]
        # Won without a showdown: nobody ever saw the other's cards.
        assert not any(others_shown(f) for f in ann.frames + bob.frames)
        ann.assert_no_leaks()
        bob.assert_no_leaks()
    finally:
        await close_all(ann, bob)


async def test_store_lost_mid_hand_cancels_it_and_restores_chips(cluster: Cluster) -> None:
    table_id, (ann, bob) = cluster.seed(["ann", "bob"], dark_play=True)
    a_server, b_server = cluster.servers
    try:
        await ann.connect(a_server, table_id)
        await bob.connect(b_server, table_id)
        await sit_both(ann, bob)
        first = await to_act([ann, bob], timeout=10)
        second = bob if first is ann else ann
        await first.act("dark")  # chips in the pot that the ledger has not moved
        await second.until(lambda f: "decline" in moves(f), what="the dark round")

        assert delete_prefix(cluster.redis_url, cluster.prefix) > 0  # Redis lost everything
        seen = {p.name: len(p.frames) for p in (ann, bob)}
        await second.act("decline")
        # The store rebuilt the table from the database; both are told, on both processes. The
        # refusal comes straight to ``second`` and the notice through the group, in either order.
        for p in (ann, bob):
            await p.until(
                lambda _f, p=p: any("was cancelled" in f for f in p.frames[seen[p.name] :]),
                what="the cancellation notice",
            )
        refusal = '<p class="error">the table was restarted since you acted'
        await second.until(
            lambda _f: any(refusal in f for f in second.frames[seen[second.name] :]), what="the refusal"
        )
        facts = cluster.facts(table_id, [ann, bob])
        assert facts["hands"][0]["status"] == "cancelled"
        assert facts["seats"] == {str(ann.user_id): 500, str(bob.user_id): 500}
        assert facts["wallets"] == {str(ann.user_id): 500, str(bob.user_id): 500}
        assert facts["audit_ok"], facts["audit"]
        ann.assert_no_leaks()
        bob.assert_no_leaks()
    finally:
        await close_all(ann, bob)


async def test_idle_sockets_stay_open_past_ten_seconds(cluster: Cluster) -> None:
    # channels-redis blocks 5 s on receive: a 5 s redis-py socket timeout would drop these (issue 422).
    table_id, (ann, bob) = cluster.seed(["ann", "bob"])
    try:
        await ann.connect(cluster.servers[0], table_id)
        await bob.connect(cluster.servers[1], table_id)
        frames = len(ann.frames), len(bob.frames)
        # Nothing is sent for 11 s: a close would end the readers early (the one wait with no event).
        done, _ = await asyncio.wait([ann.reader, bob.reader], timeout=11)  # type: ignore[list-item]
        assert not done, [(p.name, p.ws.close_code if p.ws else None) for p in (ann, bob)]
        for p, seen in zip((ann, bob), frames):
            await p.send(verb="sync")
            await p.until(lambda f, p=p, seen=seen: len(p.frames) > seen, what="the table on request")
    finally:
        await close_all(ann, bob)


async def test_chat_crosses_processes_and_its_flood_limit_holds_across_them(cluster: Cluster) -> None:
    # ann talks through a socket on each server: the flood count is one, in the shared cache, so
    # her sixth line in ten seconds is refused whichever process takes it; bob, on the second
    # server, sees the five lines said on either.
    table_id, (ann, bob) = cluster.seed(["ann", "bob"])
    ann_too = Player(name=ann.name, user_id=ann.user_id, cookie=ann.cookie)
    try:
        await ann.connect(cluster.servers[0], table_id)
        await ann_too.connect(cluster.servers[1], table_id)
        await bob.connect(cluster.servers[1], table_id)
        for n in range(5):
            sender = ann if n % 2 == 0 else ann_too
            await sender.send(verb="chat", text=f"line {n}")
            await bob.until(lambda f, n=n: f"line {n}" in f, what=f"line {n}")
        await ann_too.send(verb="chat", text="line 5")
        await ann_too.until(lambda f: "muted for 60 seconds" in f, what="the flood notice")
        await ann.send(verb="chat", text="line 6")
        await ann.until(lambda f: "muted until" in f, what="the mute, on the other process")
        await asyncio.sleep(0.5)
        assert not any("line 5" in f or "line 6" in f for f in bob.frames)
    finally:
        await close_all(ann, ann_too, bob)


# ---------------------------------------------------------------- the check itself


def _frame(phase: str, *, mine: str, other: str) -> str:
    """The shape of a table frame (templates/games/table/_regions.html), two seats."""
    card = '<span class="card" role="img" aria-label="{}"></span>'
    points = '<div class="points">27 points</div>' if phase == "shown" else ""
    seats = "".join(
        f'<div class="seat pos-{pos}{" me" if pos == 0 else ""}" data-position="{pos}">'
        f'<div class="seat-cards">{"".join(card.format(c) for c in cards.split(",") if c)}</div>{extra}</div>'
        for pos, cards, extra in ((0, mine, ""), (1, other, points))
    )
    pot_phase = "over" if phase in ("over", "shown") else phase
    return (
        '<div id="table-version" data-version="3" data-epoch="ab"></div>'
        f'<section id="table-seats" class="seats">{seats}</section>'
        f'<section id="table-pot" class="pot" data-phase="{pot_phase}"><div>Hand 1 · Betting</div></section>'
    )


@pytest.mark.parametrize(
    ("phase", "other", "leaks"),
    [
        ("betting", "", False),  # own cards only
        ("betting", "ace of hearts,king of hearts,9 of spades", True),
        ("dark", "jack of clubs", True),
        ("betting", "поп купа", True),  # any card image that is not a back, whatever its label says
        ("over", "ace of hearts,king of hearts,9 of spades", True),  # ended without a showdown
        ("shown", "ace of hearts,king of hearts,9 of spades", False),  # shown down, with points
    ],
)
def test_the_hidden_card_check_tells_a_leak(phase: str, other: str, leaks: bool) -> None:
    frame = _frame(phase, mine="7 of clubs,8 of clubs,8 of diamonds", other=other)
    assert bool(hidden_cards_seen(frame)) is leaks
    assert bool(hidden_cards_seen(frame + '<p aria-label="queen of spades"></p>'))  # outside the seats


@pytest.mark.parametrize(
    ("banner", "leaks"),
    [
        ("ace of hearts,king of hearts,9 of spades", False),  # the hands the seats show down
        ("ace of hearts,queen of spades", True),  # a card no seat shows down
    ],
)
def test_the_svara_banner_may_repeat_only_hands_shown_down(banner: str, leaks: bool) -> None:
    frame = _frame(
        "shown", mine="7 of clubs,8 of clubs,8 of diamonds", other="ace of hearts,king of hearts,9 of spades"
    )
    card = '<span class="card" role="img" aria-label="{}"></span>'
    cards = "".join(card.format(c) for c in banner.split(","))
    frame += (
        f'<div class="svara-banner" role="group"><div class="svara-hands">{cards}</div><p class="svara-next">'
    )
    assert bool(hidden_cards_seen(frame)) is leaks
