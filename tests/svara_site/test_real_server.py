"""One real Daphne process, as players reach it: PostgreSQL connections under a burst, the socket
origin check with real WebSocket connections, a path climbing out of /static/, /healthz."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from bench import harness as procs
from tests.svara_site.envkit import strong_key

pytestmark = pytest.mark.timeout(240)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


OPENER = urllib.request.build_opener(_NoRedirects)


def get(url: str, *, host: str | None = None, **headers: str) -> tuple[int, bytes]:
    """One GET, redirects not followed (a 301 is the answer)."""
    request = urllib.request.Request(url, headers={**({"Host": host} if host else {}), **headers})
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# ---------------------------------------------------------------- PostgreSQL connections


def connections_to(database_url: str) -> int:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [name]
        ).fetchone()
    return int(row[0])


@pytest.fixture
def pg_server(postgres_db: None, tmp_path: Path) -> Iterator[tuple[procs.Daphne, str]]:
    env_for = lambda url: procs.server_env(database_url=url, redis_url=None, prefix="svara:pg:")  # noqa: E731
    with procs.dedicated_database(os.environ["DATABASE_URL"], stem="svara_conns", env_for=env_for) as url:
        server = procs.Daphne.start(env=env_for(url), log=tmp_path / "daphne.log")
        try:
            yield server, url
        finally:
            server.stop()


POOL = 8  # DB_POOL_SIZE's default: the most connections one process opens


def test_a_burst_of_200_requests_leaves_at_most_the_pool_of_connections(pg_server) -> None:
    server, database_url = pg_server
    # Pages that query the database (the lobby lists the tables), 50 at a time, 200 in all.
    statuses: list[int] = []
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], connections_to(database_url))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:

        def load(_: int) -> None:
            statuses.append(get(f"http://127.0.0.1:{server.port}/lobby/")[0])

        threads = [threading.Thread(target=load, args=(i,)) for i in range(200)]
        for batch in range(0, 200, 50):
            for t in threads[batch : batch + 50]:
                t.start()
            for t in threads[batch : batch + 50]:
                t.join(timeout=120)
    finally:
        done.set()
        watcher.join()
    assert statuses == [200] * 200, sorted(set(statuses))
    assert 1 <= peak[0] <= POOL, peak[0]
    time.sleep(1)
    assert connections_to(database_url) <= POOL
    assert "Traceback" not in server.tail(100_000)


# ---------------------------------------------------------------- origins, static files, health


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[procs.Daphne]:
    """The test settings (DEBUG on, the finders serve static files), on SQLite."""
    tmp = tmp_path_factory.mktemp("local-server")
    env = procs.server_env(
        database_url=f"sqlite:///{tmp / 'db.sqlite3'}", redis_url=None, prefix=f"svara:o:{uuid.uuid4().hex}:"
    )
    env["SVARA_VAR_DIR"] = str(tmp)
    procs.manage(env, "migrate", "--noinput", "-v", "0")
    server = procs.Daphne.start(env=env, log=tmp / "daphne.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def public_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[procs.Daphne]:
    """The production settings behind PUBLIC_URL (DEBUG off, collected static files), on SQLite."""
    tmp = tmp_path_factory.mktemp("public-server")
    env = procs.server_env(
        database_url=f"sqlite:///{tmp / 'db.sqlite3'}",
        redis_url=None,
        prefix=f"svara:o:{uuid.uuid4().hex}:",
        settings="svara_site.settings",
        DEBUG="false",
        SECRET_KEY=strong_key(),
        PUBLIC_URL="https://svara.example",
        SVARA_VAR_DIR=str(tmp),
    )
    procs.manage(env, "migrate", "--noinput", "-v", "0")
    procs.manage(env, "collectstatic", "--noinput", "-v", "0")
    server = procs.Daphne.start(env=env, log=tmp / "daphne.log")
    try:
        yield server
    finally:
        server.stop()


async def opens(server: procs.Daphne, origin: str | None) -> bool:
    """Does a real WebSocket handshake from ``origin`` get through? (/ws/ping/ needs no login.)"""
    try:
        async with websockets.connect(
            f"{server.ws_base}/ws/ping/",
            origin=origin,
            proxy=None,
            open_timeout=10,  # type: ignore[arg-type]
        ) as ws:
            await ws.send(json.dumps({"hello": 1}))
            return json.loads(await asyncio.wait_for(ws.recv(), 10))["pong"] is True
    except InvalidStatus as refused:
        assert refused.response.status_code == 403
        return False


async def test_a_local_socket_is_open_only_to_the_pages_this_process_serves(local_server) -> None:
    port = local_server.port
    assert await opens(local_server, f"http://127.0.0.1:{port}")
    assert await opens(local_server, f"http://localhost:{port}")
    # The same host on another port or scheme is another site (another program's page).
    for origin in (
        "http://localhost:9999",
        f"https://127.0.0.1:{port}",
        f"ws://127.0.0.1:{port}",
        "http://127.0.0.1",
        f"http://evil.example:{port}",
        "null",
        None,
    ):
        assert not await opens(local_server, origin), origin


async def test_behind_public_url_only_its_origin_opens_a_socket(public_server) -> None:
    assert await opens(public_server, "https://svara.example")
    assert await opens(public_server, "https://svara.example:443")
    for origin in ("http://svara.example", "https://svara.example:8443", "https://evil.example", None):
        assert not await opens(public_server, origin), origin


@pytest.mark.parametrize("server", ["local_server", "public_server"])
def test_a_path_out_of_the_static_files_is_the_rooms_404(server: str, request: pytest.FixtureRequest) -> None:
    daphne: procs.Daphne = request.getfixturevalue(server)
    host = "svara.example" if server == "public_server" else None
    # Behind PUBLIC_URL as the proxy sends it (X-Forwarded-Proto), else plain http is sent to https.
    proxied = {"X-Forwarded-Proto": "https"} if server == "public_server" else {}
    for path in ("/static/%2e%2e/%2e%2e/svara_site/settings.py", "/static/../../svara_site/settings.py"):
        status, body = get(f"http://127.0.0.1:{daphne.port}{path}", host=host, **proxied)
        assert status == 404, (path, status)
        assert b"SECRET_KEY" not in body
        if server == "public_server":
            assert b'<section class="error-page">' in body and b"Go to the lobby" in body, body[:500]
    assert "Traceback" not in daphne.tail(100_000)


def test_healthz_says_what_answers(local_server, public_server) -> None:
    status, body = get(f"http://127.0.0.1:{local_server.port}/healthz")
    assert (status, json.loads(body)) == (200, {"status": "ok", "database": "ok"})
    # Polled directly (any Host, plain http) behind PUBLIC_URL too: no redirect, no host check.
    status, body = get(f"http://127.0.0.1:{public_server.port}/healthz", host="10.0.0.5:8001")
    assert (status, json.loads(body)) == (200, {"status": "ok", "database": "ok"})


def test_healthz_names_a_service_that_does_not_answer(tmp_path: Path) -> None:
    from tests.svara_site.envkit import clean_env, run_python

    # Nothing listens on port 9 (discard) of the loopback: Redis is down; the database is fine.
    env = clean_env(
        tmp_path,
        DEBUG="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="redis://:hunter2@127.0.0.1:9/0",
    )
    code = (
        "import django, json; django.setup()\n"
        "from django.test import Client\n"
        "r = Client().get('/healthz')\n"
        "print(r.status_code, r.content.decode())"
    )
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr[-2000:]
    status, body = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "503"
    assert json.loads(body) == {"status": "unavailable", "database": "ok", "redis": "unavailable"}
    assert "hunter2" not in body and "127.0.0.1" not in body  # no secrets, no addresses
