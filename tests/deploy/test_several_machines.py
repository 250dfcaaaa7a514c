"""Several machines behind one address (docs/deploy.md, "Several machines"): a front nginx
(deploy/nginx/svara-front.conf) in front of two machines, each the kit's own nginx site rendered
with ``front_proxies`` and its own Daphne process, all on this machine's loopback, sharing
PostgreSQL and Redis. A player connecting from 127.0.0.7 must be 127.0.0.7 in the room's log on
whichever machine served it (not the front's or nginx's 127.0.0.1), and an X-Forwarded-For the
player wrote itself must never be taken, through the front or straight at a machine."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import socket
import ssl
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.sync.client import connect
from websockets.typing import Origin

from deploy.local import DAPHNE_OPTIONS, NGINX_MAIN, _manage, free_port, make_certificate, shape_env
from deploy.nginx_front import Front, render_front
from deploy.nginx_site import Site, render
from deploy.processes import Daphne, Nginx, wait_until
from tests.conftest import service_missing

pytestmark = pytest.mark.timeout(180)

PLAYER, SPOOFED = "127.0.0.7", "203.0.113.66"


@dataclass
class Room:
    authority: Path
    front_port: int
    machine_ports: tuple[int, int]
    logs: tuple[Path, Path]  # each machine's Daphne log


def _nginx(prefix: Path, site: str, port: int) -> Nginx:
    (prefix / "tmp").mkdir(parents=True)
    (prefix / "svara.conf").write_text(site)
    (prefix / "nginx.conf").write_text(NGINX_MAIN.format(prefix=prefix))
    if os.geteuid() == 0:  # nginx runs as nobody: it reads the files and writes its own
        for path in [prefix.parent, *prefix.parent.rglob("*")]:
            os.chmod(path, 0o777 if path.is_dir() else 0o644)

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    return Nginx.start(prefix=prefix, config=prefix / "nginx.conf", log=prefix / "nginx.log", ready=listening)


@pytest.fixture
def room(redis_url: str, postgres_db: None) -> Iterator[Room]:
    if not os.path.exists("/usr/sbin/nginx"):
        service_missing("needs nginx (Debian's nginx package)")
    # Not pytest's tmp_path: its parents are private, and nginx runs as nobody when we are root.
    with tempfile.TemporaryDirectory() as name, ExitStack() as stack:
        workdir = Path(name)
        _chain, _key, authority = make_certificate(workdir / "tls", "svara.example")
        front_port, machine_ports = free_port(), (free_port(), free_port())
        env = shape_env(
            database_url=os.environ["DATABASE_URL"],
            redis_url=redis_url,
            public_url=f"https://svara.example:{front_port}",
            workdir=workdir,
            prefix=f"svara:machines:{secrets.token_hex(4)}:",
            secret_key=secrets.token_urlsafe(50),
        )
        # Each machine's Daphne hears only its own nginx, on 127.0.0.1: believe no other peer.
        env.update(TRUSTED_PROXY_NETWORKS="127.0.0.1/32", LIVE_TABLE_WORKER="0")
        _manage(env, "collectstatic", "--noinput", "-v", "0")
        logs = []
        for index, port in enumerate(machine_ports):
            log = workdir / f"daphne-{index}.log"
            daphne = Daphne.start(env=env, log=log, options=DAPHNE_OPTIONS)
            stack.callback(daphne.stop)
            logs.append(log)
            site = Site(
                public_url=f"https://svara.example:{port}",
                web_ports=(daphne.port,),
                static_root=workdir / "static",
                certificate=workdir / "tls" / "fullchain.pem",
                key=workdir / "tls" / "privkey.pem",
                http_port=free_port(),
                bind="127.0.0.1",
                front_proxies=("127.0.0.1/32",),  # where the front connects from
            )
            prefix = workdir / f"machine-{index}"
            stack.callback(_nginx(prefix, render(site), port).stop)
        front = Front(
            public_url=f"https://svara.example:{front_port}",
            machines=tuple(f"127.0.0.1:{port}" for port in machine_ports),
            certificate=workdir / "tls" / "fullchain.pem",
            key=workdir / "tls" / "privkey.pem",
            http_port=free_port(),
            bind="127.0.0.1",
        )
        stack.callback(_nginx(workdir / "front", render_front(front), front_port).stop)
        yield Room(authority, front_port, machine_ports, (logs[0], logs[1]))


def get(room: Room, *, port: int, source: str, path: str, headers: dict[str, str] | None = None) -> int:
    context = ssl.create_default_context(cafile=str(room.authority))
    conn = http.client.HTTPSConnection(
        "127.0.0.1", port, context=context, timeout=20, source_address=(source, 0)
    )
    try:
        conn.request("GET", path, headers={"Host": f"svara.example:{room.front_port}", **(headers or {})})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def clients(log: Path, marker: str) -> list[str]:
    """The client addresses of the room's access lines for requests whose path holds ``marker``."""
    lines = log.read_text(errors="replace").splitlines()
    return [
        line.split(" GET ", 1)[0].split()[-1] for line in lines if "svara.access" in line and marker in line
    ]


def test_the_room_sees_the_players_address_through_the_front_and_a_machine(room: Room) -> None:
    spoof = {"X-Forwarded-For": SPOOFED}
    for n in range(4):
        assert (
            get(room, port=room.front_port, source=PLAYER, path=f"/healthz?via=front{n}", headers=spoof)
            == 200
        )
    seen = [clients(log, "via=front") for log in room.logs]
    # Both machines served (the front spreads requests), and each saw the player, nobody else.
    assert all(seen), seen
    assert sorted(seen[0] + seen[1]) == [PLAYER] * 4, seen


def test_a_player_straight_at_a_machine_is_its_own_address(room: Room) -> None:
    # A machine's nginx believes X-Forwarded-For from the front's address only.
    for port in room.machine_ports:
        status = get(
            room,
            port=port,
            source="127.0.0.8",
            path="/healthz?via=direct",
            headers={"X-Forwarded-For": SPOOFED},
        )
        assert status == 200
    assert (
        sorted(clients(room.logs[0], "via=direct") + clients(room.logs[1], "via=direct")) == ["127.0.0.8"] * 2
    )


def test_a_table_socket_through_the_front_is_the_players_too(room: Room) -> None:
    # The socket's upgrade passes both nginx hops; the room's open and close lines name the player.
    context = ssl.create_default_context(cafile=str(room.authority))
    origin = f"https://svara.example:{room.front_port}"
    sock = socket.create_connection(("127.0.0.1", room.front_port), timeout=20, source_address=(PLAYER, 0))
    with connect(
        f"wss://svara.example:{room.front_port}/ws/ping/",
        sock=sock,
        ssl=context,
        origin=Origin(origin),
        additional_headers={"X-Forwarded-For": SPOOFED},
        open_timeout=20,
    ) as ws:
        ws.send(json.dumps({"ping": 1}))
        assert json.loads(ws.recv(timeout=20))["pong"] is True

    def lines() -> list[str]:
        return [
            line
            for log in room.logs
            for line in log.read_text(errors="replace").splitlines()
            if "svara.access" in line and " WS /ws/ping/ " in line
        ]

    wait_until(
        lambda: any(" closed " in line for line in lines()), timeout=10, what="the socket's close line"
    )
    assert len(lines()) == 2 and all(f" {PLAYER} WS /ws/ping/ " in line for line in lines()), lines()
