"""How fast the leaderboards, a player's page and "My hands" answer as the stored hands grow.

On a fresh PostgreSQL database of its own (created next to the one --database-url names, dropped at
the end), filled fast with bulk writes (COPY): players (one in a few hundred plays far more than the
rest, as the room's regulars do), tables at every stake (some private, some practice), finished
hands spread over the last 120 days with two to four players each, their players' rows, and each
player's wallet with the sign-up grant. The standings are then counted afresh with
``rebuild_standings`` (timed: the command an operator runs), as the settlements would have kept them.
The stored hand files are small stand-ins (the stake only): the pages measured read no hand file.
The ledger holds the grants but not the hands' settlements, which no page measured here reads.

At each size the pages are asked for in-process through Django's test client as a logged-in player
(the whole request: middleware, session, queries, template), a few times to warm up, then --requests
times: the median and the 90th percentile in milliseconds. Prints a table; writes
bench/results/players.json.

    python -m bench.players [--sizes 10000,100000,1000000] [--players 2000] [--requests 30]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
STAKES = (10, 50, 200, 1000)
TABLES = 200
DAYS = 120


def _setup(database_url: str, var_dir: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "svara_site.settings"
    os.environ["DEBUG"] = "true"  # static files from the finders; turned off below for the queries
    os.environ["SVARA_VAR_DIR"] = var_dir
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # As in production: no query log, and templates compiled once (the cached loader), which the
    # engines pick when they are made without DEBUG (migrate's checks made them with it).
    settings.DEBUG = False
    from django.template import engines
    from django.template.engine import Engine

    engines.__dict__.pop("templates", None)
    engines._engines = {}
    Engine.get_default.cache_clear()


def _copy(table: str, columns: tuple[str, ...], rows: Any) -> int:
    from django.db import connection

    connection.ensure_connection()
    count = 0
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with connection.connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def _next_id(table: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}")
        return int(cursor.fetchone()[0])


def _reset_sequences(*tables: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in tables:
            sequence = f"pg_get_serial_sequence('{table}', 'id')"
            cursor.execute(f"SELECT setval({sequence}, (SELECT coalesce(max(id), 1) FROM {table}))")


def fill_players(*, players: int, now: datetime) -> list[int]:
    """Players with a wallet holding the sign-up grant from the house; their ids."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import LedgerAccount

    password = make_password("bench-players-91")
    joined = now - timedelta(days=DAYS + 30)
    u0, a0 = _next_id("accounts_user"), _next_id("accounts_ledgeraccount")
    t0, e0 = _next_id("accounts_ledgertransaction"), _next_id("accounts_ledgerentry")
    ids = list(range(u0, u0 + players))
    columns = (
        "id", "password", "is_superuser", "username", "first_name", "last_name", "email", "is_staff",
        "is_active", "date_joined", "computer_level", "username_skeleton", "stats_hidden",
    )  # fmt: skip
    _copy(
        "accounts_user",
        columns,
        (
            (u, password, False, f"p{u:06d}", "", "", "", False, True, joined, "", f"p{u:06d}", False)
            for u in ids
        ),
    )
    house = LedgerAccount.objects.filter(kind="house").values_list("pk", flat=True).first()
    if house is None:
        house = LedgerAccount.objects.create(kind="house", key="house").pk
    a0 = max(a0, house + 1)
    _copy(
        "accounts_ledgeraccount",
        ("id", "kind", "user_id", "key", "balance", "created_at"),
        ((a0 + i, "wallet", u, f"wallet:{u}", 1000, joined) for i, u in enumerate(ids)),
    )
    LedgerAccount.objects.filter(pk=house).update(balance=-1000 * players)
    _copy(
        "accounts_ledgertransaction",
        ("id", "kind", "memo", "idempotency_key", "fingerprint", "amount", "created_at"),
        (
            (t0 + i, "signup_bonus", "welcome chips", f"signup:{u}", "-", 1000, joined)
            for i, u in enumerate(ids)
        ),
    )
    # Each entry carries its account's owner and its transaction's time, as posting copies them
    # (the house's entries have no owner).
    entries = []
    for i, u in enumerate(ids):
        entries += [
            (e0 + 2 * i, t0 + i, a0 + i, 1000, u, joined),
            (e0 + 2 * i + 1, t0 + i, house, -1000, None, joined),
        ]
    _copy(
        "accounts_ledgerentry",
        ("id", "transaction_id", "account_id", "amount", "owner_id", "created_at"),
        entries,
    )
    _reset_sequences(
        "accounts_user", "accounts_ledgeraccount", "accounts_ledgertransaction", "accounts_ledgerentry"
    )
    return ids


def fill_tables(*, now: datetime) -> list[tuple[int, int, bool, str]]:
    """(id, stake, private, kind) of each table: one in ten private, one in twenty practice."""
    rows = []
    for i in range(1, TABLES + 1):
        rows.append((i, STAKES[i % 4], i % 10 == 0, "practice" if i % 20 == 7 else "cash"))
    _copy(
        "games_table",
        (
            "id",
            "name",
            "stake",
            "seat_count",
            "dark_play",
            "turn_seconds",
            "private",
            "invite_code",
            "status",
            "kind",
            "created_at",
            "hands_started",
        ),
        (
            (i, f"Bench {i}", stake, 4, True, 30, private, f"bench-invite-{i}", "open", kind, now, 0)
            for i, stake, private, kind in rows
        ),
    )
    _reset_sequences("games_table")
    return rows


def fill_hands(
    *, first: int, count: int, users: list[int], tables: list, now: datetime, rng: random.Random
) -> None:
    """Hands ``first``..``first + count - 1``, finished, with their players' rows."""
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(users))]
    start = now - timedelta(days=DAYS)
    span = DAYS * 86400
    hands, seats = [], []
    seat_id = first * 4
    numbers: dict[int, int] = {}
    for hand_id in range(first, first + count):
        table_id, stake, _private, _kind = tables[hand_id % len(tables)]
        numbers[table_id] = numbers.get(table_id, 0) + 1
        n = rng.choice((2, 2, 3, 3, 4))
        who: list[int] = []
        while len(who) < n:
            pick = rng.choices(users, weights=weights)[0]
            if pick not in who:
                who.append(pick)
        winner = rng.randrange(n)
        losses = [0 if i == winner else stake * rng.randint(1, 6) for i in range(n)]
        pot = sum(losses) + stake
        ended = start + timedelta(seconds=span * (hand_id - first) / count + rng.random())
        hands.append(
            (
                hand_id,
                table_id,
                hand_id,
                "finished",
                ended,
                ended,
                "0" * 64,
                "0" * 64,
                pot,
                who[winner],
                "[]",
                json.dumps({"stake": stake}),
                "",
                "",
            )
        )
        for i, uid in enumerate(who):
            net = sum(losses) if i == winner else -losses[i]
            seats.append((seat_id, hand_id, uid, i, 10_000, 10_000 + net, i == winner, ended, "finished"))
            seat_id += 1
    _copy(
        "games_playedhand",
        (
            "id",
            "table_id",
            "number",
            "status",
            "started_at",
            "ended_at",
            "server_seed_hash",
            "server_seed",
            "pot",
            "winner_id",
            "client_seeds",
            "record",
            "prev_hash",
            "chain_hash",
        ),
        hands,
    )
    _copy(
        "games_handplayer",
        # The hand's start and status, as the settlement copies them onto each player's row.
        (
            "id",
            "hand_id",
            "user_id",
            "position",
            "chips_before",
            "chips_after",
            "won",
            "started_at",
            "hand_status",
        ),
        seats,
    )
    _reset_sequences("games_playedhand", "games_handplayer")


class _SqlClock:
    """Time spent waiting for the database, summed over a request's statements."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.spent += time.perf_counter() - began
            self.count += 1


def _time_page(client: Any, url: str, *, requests: int) -> dict[str, float]:
    from django.db import connection

    for _ in range(3):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    times, sql, statements = [], [], 0
    for _ in range(requests):
        clock = _SqlClock()
        with connection.execute_wrapper(clock):
            began = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - began) * 1000)
        sql.append(clock.spent * 1000)
        statements = clock.count
        assert response.status_code == 200
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 2),
        "p90_ms": round(times[int(len(times) * 0.9) - 1], 2),
        "sql_median_ms": round(statistics.median(sql), 2),
        "statements": statements,
    }


def measure(*, users: list[int], requests: int) -> dict[str, dict[str, float]]:
    from django.db.models import Count
    from django.test import Client

    from accounts.models import User
    from games.models import HandPlayer

    counts = dict(HandPlayer.objects.values_list("user_id").annotate(n=Count("pk")).order_by())
    by_hands = sorted(users, key=lambda u: -counts.get(u, 0))
    busiest, typical = by_hands[0], by_hands[len(by_hands) // 2]
    viewer = User.objects.get(pk=by_hands[1])
    client = Client()
    client.force_login(viewer)
    names = dict(User.objects.filter(pk__in=[busiest, typical]).values_list("pk", "username"))
    pages = {
        "leaderboard (week)": "/leaderboard/",
        "leaderboard (all time)": "/leaderboard/?period=all",
        f"player page, busiest ({counts.get(busiest, 0)} hands)": f"/players/{names[busiest]}/",
        f"player page, median ({counts.get(typical, 0)} hands)": f"/players/{names[typical]}/",
        f"/hands/ of the viewer ({counts.get(viewer.pk, 0)} hands)": "/hands/",
    }
    return {label: _time_page(client, url, requests=requests) for label, url in pages.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
    )
    parser.add_argument("--sizes", default="10000,100000", help="hands stored at each measurement, ascending")
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS / "players.json"))
    args = parser.parse_args(argv)
    if not args.database_url.startswith(("postgres://", "postgresql://")):
        parser.error("needs PostgreSQL: --database-url postgres://...")
    sizes = sorted(int(s) for s in args.sizes.split(","))

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.harness import drop_database, fresh_database

    # Stopped by a signal (SIGTERM, or SIGINT where a shell started it in the background and so
    # ignores it), it still drops its database: the handlers raise, the ``finally`` runs.
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, lambda signum, frame: sys.exit(f"stopped by signal {signum}"))
    url = fresh_database(args.database_url, stem="svara_bench_players")
    results: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as var_dir:
            _setup(url, var_dir)
            from django.db import connection

            from games.standings.rebuild import rebuild_standings

            rng = random.Random(args.seed)
            now = datetime.now(UTC)
            users = fill_players(players=args.players, now=now)
            tables = fill_tables(now=now)
            stored = 0
            for size in sizes:
                began = time.perf_counter()
                fill_hands(
                    first=stored + 1, count=size - stored, users=users, tables=tables, now=now, rng=rng
                )
                filled = time.perf_counter() - began
                stored = size
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
                began = time.perf_counter()
                rows = rebuild_standings()
                rebuilt = time.perf_counter() - began
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
                pages = measure(users=users, requests=args.requests)
                results.append(
                    {
                        "load_average": [round(x, 2) for x in os.getloadavg()],
                        "hands": size,
                        "fill_s": round(filled, 1),
                        "rebuild_s": round(rebuilt, 1),
                        "standing_rows": rows,
                        "pages": pages,
                    }
                )
                print(f"\n{size:,} hands stored (filled in {filled:.1f} s;", end=" ")
                load = os.getloadavg()[0]
                print(f"rebuild_standings {rebuilt:.1f} s, {rows:,} rows; load average {load:.1f})")
                print(f"  {'page':<44} {'median ms':>10} {'p90 ms':>8} {'SQL ms':>7} {'queries':>8}")
                for label, f in pages.items():
                    print(
                        f"  {label:<44} {f['median_ms']:>10.1f} {f['p90_ms']:>8.1f}"
                        f" {f['sql_median_ms']:>7.1f} {f['statements']:>8}"
                    )
                sys.stdout.flush()
            connection.close()
    finally:
        drop_database(url)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "when": datetime.now(UTC).isoformat(timespec="seconds"),
                "machine": platform.platform(),
                "players": args.players,
                "requests": args.requests,
                "sizes": results,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
