"""The harness the benchmarks and the multi-process tests share: real server processes on a
database and a Redis of their own.

What is here, and why it runs in subprocesses:

- ``fresh_database``/``drop_database``: a dedicated PostgreSQL database per run (never the pytest test
  database, which lives inside a transaction or is flushed between tests, so other processes would
  not see its rows or would lose them). The name is unique per run, so engineers sharing the machine
  never collide.
- ``Daphne``, ``TableWorker``: real server processes (deploy/processes.py, which the production
  shape of deploy/local.py starts too).
- ``django_call``: runs one command of this module (``python -m bench.harness <command> <json>``)
  in a subprocess against the dedicated database: seeding users with session cookies and tables,
  reading facts back (balances, stored hands), and ``audit_chips``. The test process itself keeps
  pytest-django's database guard; every row it looks at is read the way another process would.

Processes are started in their own session so ``kill`` reaches only them; callers stop them in
fixture finalizers (or ``finally`` blocks), even when a test fails.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from deploy.processes import BIN, ROOT, Daphne, Process, TableWorker, wait_until

__all__ = ["BIN", "ROOT", "Daphne", "Process", "TableWorker", "wait_until"]


# ---------------------------------------------------------------- databases


def _with_db(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def fresh_database(base_url: str, *, stem: str) -> str:
    """Create an empty database next to the one ``base_url`` names; return its URL."""
    import psycopg

    name = f"{stem}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_with_db(base_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return _with_db(base_url, name)


def drop_database(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(_with_db(url, "postgres"), autocommit=True) as conn:
        # FORCE: a killed server may leave a connection behind for a moment.
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_env(
    *,
    database_url: str,
    redis_url: str | None,
    prefix: str,
    settings: str = "svara_site.test_settings",
    **extra: str,
) -> dict[str, str]:
    """The environment for servers and helper commands: one database, one Redis, one key prefix."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "CI", "PYTEST_CURRENT_TEST"}}
    env.update(
        DJANGO_SETTINGS_MODULE=settings,
        DATABASE_URL=database_url,
        LIVE_STATE_PREFIX=prefix,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        # Every scripted player connects from 127.0.0.1: the per-account limit still holds.
        **{"SOCKETS_PER_ADDRESS": "0", **extra},
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def manage(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=check,
        timeout=120,
    )


def django_call(env: dict[str, str], command: str, **kwargs: Any) -> Any:
    """Run one of this module's commands in a subprocess against ``env``'s database; its JSON result.

    The arguments go in on standard input, not on the command line: one argument is limited to
    128 KiB on Linux, and 1,600 tables' players failed with "Argument list too long"."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.harness", command, "-"],
        input=json.dumps(kwargs),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- servers


@contextmanager
def servers(count: int, *, env: dict[str, str], log_dir: Path, app: str = "svara_site.asgi:application"):
    """``count`` Daphne processes for the block; always stopped afterwards."""
    started: list[Daphne] = []
    log_dir.mkdir(parents=True, exist_ok=True)
    try:
        for i in range(count):
            started.append(Daphne.start(env=env, log=log_dir / f"daphne-{i}.log", app=app))
        yield started
    finally:
        for server in started:
            server.stop()


@contextmanager
def dedicated_database(
    base_url: str, *, stem: str, env_for: Callable[[str], dict[str, str]]
) -> Iterator[str]:
    """A fresh, migrated database for the block; dropped afterwards."""
    url = fresh_database(base_url, stem=stem)
    try:
        manage(env_for(url), "migrate", "--noinput")
        yield url
    finally:
        drop_database(url)


# ---------------------------------------------------------------- commands run inside Django


def _cmd_seed(players: list[str], tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Users with their sign-up chips and a logged-in session each, and tables."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.services import grant_signup_bonus
    from games.models import Table

    users = {}
    for name in players:
        # No password (unusable): hashing one is slow, and a session cookie is all a player needs.
        user = get_user_model().objects.create_user(username=name, password=None)
        grant_signup_bonus(user=user)
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        users[name] = {"id": user.pk, "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}"}
    defaults = {"name": "mp", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 30}
    made = [Table.objects.create(**{**defaults, **fields}).pk for fields in tables]
    return {"users": users, "tables": made}


def _cmd_facts(table: int, users: list[int]) -> dict[str, Any]:
    """What the database says about a table: wallets, seats, stored hands, and ``audit_chips``."""
    from django.core.management import CommandError, call_command

    from accounts.models import User
    from accounts.services import seat_balance, wallet_balance
    from games.models import PlayedHand

    audit = io.StringIO()
    try:
        call_command("audit_chips", stdout=audit)
        audit_ok = True
    except CommandError as exc:
        audit_ok = False
        audit.write(str(exc))
    people = {u.pk: u for u in User.objects.filter(pk__in=users)}
    hands = PlayedHand.objects.filter(table_id=table).order_by("number")
    return {
        "audit_ok": audit_ok,
        "audit": audit.getvalue(),
        "wallets": {str(pk): wallet_balance(user=u) for pk, u in people.items()},
        "seats": {str(pk): seat_balance(user=u, table_id=table) for pk, u in people.items()},
        "hands": [
            {
                "number": h.number,
                "status": h.status,
                "pot": h.pot,
                "winner": h.winner_id,
                # Names of the players whose cards were shown (a showdown), from the stored hand.
                "shown": sorted(((h.record or {}).get("result") or {}).get("points") or {}),
                "result": (h.record or {}).get("result"),
            }
            for h in hands
        ],
    }


def _cmd_fund(users: list[int], chips: int) -> dict[str, Any]:
    """Give each user ``chips`` from the house, as a staff adjustment (a recorded transaction)."""
    from django.contrib.auth import get_user_model

    from accounts.services import wallet_adjust

    model = get_user_model()
    staff, _ = model.objects.get_or_create(
        username="drill-staff", defaults={"is_staff": True, "is_superuser": True}
    )
    for user in model.objects.filter(pk__in=users):
        wallet_adjust(user=user, amount=chips, reason="drill funds", staff_user=staff)
    return {"funded": len(users)}


def _cmd_room(players: list[int]) -> dict[str, Any]:
    """The whole room's chips and hands: every wallet and seat of these players, the house, the
    ledger's own audit, and how many hands were finished, cancelled or are in play."""
    from django.core.management import CommandError, call_command
    from django.db.models import Count, Sum

    from accounts.models import LedgerAccount
    from games.models import PlayedHand

    audit = io.StringIO()
    try:
        call_command("audit_chips", stdout=audit)
        audit_ok = True
    except CommandError as exc:
        audit_ok = False
        audit.write(str(exc))
    held = LedgerAccount.objects.filter(user_id__in=players).aggregate(total=Sum("balance"))["total"] or 0
    house = LedgerAccount.objects.filter(kind="house").aggregate(total=Sum("balance"))["total"] or 0
    statuses = dict(
        PlayedHand.objects.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    return {
        "players": held,
        "house": house,
        "audit_ok": audit_ok,
        "audit": audit.getvalue(),
        "hands": statuses,
    }


def _cmd_chat(table: int, user: int, count: int, text: str) -> dict[str, Any]:
    """``count`` chat lines said by ``user`` at ``table`` through the chat service (its flood limit
    let go between them: a table that talked a lot over an evening, said at once)."""
    from django.core.cache import cache

    from accounts.models import User
    from games.social.chat import _flood_key, send_chat

    speaker = User.objects.get(pk=user)
    ids = []
    for _ in range(count):
        cache.delete(_flood_key(speaker.pk, "flood"))  # never cache.clear(): all of Redis's database
        ids.append(send_chat(user=speaker, table_id=table, text=text).id)
    return {"ids": ids}


COMMANDS: dict[str, Callable[..., Any]] = {
    "seed": _cmd_seed,
    "chat": _cmd_chat,
    "facts": _cmd_facts,
    "fund": _cmd_fund,
    "room": _cmd_room,
}


def main(argv: list[str]) -> None:
    import django

    django.setup()
    # ``-``: the arguments' JSON on standard input (``django_call``); else on the command line.
    text = (sys.stdin.read() if argv[1] == "-" else argv[1]) if len(argv) > 1 else "{}"
    command, kwargs = argv[0], json.loads(text)
    print(json.dumps(COMMANDS[command](**kwargs)))


if __name__ == "__main__":
    main(sys.argv[1:])
