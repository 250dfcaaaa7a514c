"""The pages as the room grows: their median time and queries at each size of stored play.

On its own fresh PostgreSQL database (made from ``--database-url``'s server, dropped afterwards),
it fills hands and ledger entries shaped as the settlement path writes them (games.live.records,
accounts.ledger.posting: a stored hand, its players' rows, a hand_settle transaction with an
entry per seat, the copies the lists read), in bulk, one size after the other; open tables for the
lobby, a part of them with players; one heavy player who plays ``--heavy-share`` of the hands.
At each size it asks each page ``--requests`` times through Django's test client (``DEBUG`` off,
logged in) and prints the median time and the queries of one request; ``manage.py audit_chips``
once. Writes bench/results/growth.json.

    python -m bench.growth --hands 10,100000,1000000 --tables 10000
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
PLAYERS = 2_000
HISTORY_TABLES = 500  # closed tables the stored hands were played at
HEAVY_TABLES = 50  # of those, where the heavy player sat
BATCH = 5_000
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _database_url(server: str, name: str) -> str:
    parts = urlsplit(server)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def _admin_sql(server: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(_database_url(server, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def _setup(url: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings_growth"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


# ---------------------------------------------------------------- filling


def _record(table_id: int, number: int, names: list[str], started: datetime, pot: int) -> dict[str, Any]:
    """A stored hand file of the usual size (HAND_FORMAT.md's keys, about 2 KB)."""
    return {
        "format": "svara-hand/1",
        "hand_id": f"{table_id}-{number}",
        "table": table_id,
        "stake": 10,
        "dark_play": True,
        "started_at": started.isoformat(),
        "players": [{"name": name, "chips": 5_000} for name in names],
        "dealer": 0,
        "decks": [["7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "7S", "8S", "9S", "10S"] * 3],
        "actions": [{"seat": i % 2, "verb": verb, "amount": 10 * (i + 1)} for i, verb in
                    enumerate(["ante", "ante", "dark", "raise", "call", "raise", "call", "show"])],
        "server_seed_hash": "h" * 64,
        "server_seed": "s" * 64,
        "client_seeds": ["c" * 16 for _ in names],
        "nonce": number,
        "result": {"winner": names[0], "pot": pot, "chips": {name: 5_000 for name in names},
                   "shown": {name: ["AH", "AS", "7C"] for name in names}},
    }  # fmt: skip


class Room:
    """What has been filled so far, to fill on from there."""

    def __init__(self) -> None:
        self.hands = 0
        self.open_tables = 0
        self.users: list[int] = []
        self.heavy = 0
        self.staff = 0
        self.seats: dict[tuple[int, int], int] = {}  # (user, table) -> seat account
        self.history_tables: list[int] = []
        self.numbers: dict[int, int] = {}


def _start(room: Room) -> None:
    from django.contrib.auth import get_user_model

    from accounts.ledger.posting import house_account
    from accounts.models import LedgerAccount
    from accounts.services import grant_signup_bonus
    from games.models import Table

    user_model = get_user_model()
    user_model.objects.bulk_create(
        [user_model(username=f"grow{n}", password="!") for n in range(PLAYERS)], batch_size=BATCH
    )
    room.users = list(user_model.objects.filter(username__startswith="grow").values_list("pk", flat=True))
    heavy = user_model.objects.create_user(username="heavy", password="growth-pass-91")
    staff = user_model.objects.create_superuser(username="boss", password="growth-pass-91")
    room.heavy, room.staff = heavy.pk, staff.pk
    grant_signup_bonus(user=heavy)
    house_account()
    tables = Table.objects.bulk_create(
        [
            Table(name=f"Old {n}", stake=10, seat_count=6, status=Table.Status.CLOSED)
            for n in range(HISTORY_TABLES)
        ]
    )
    room.history_tables = [t.pk for t in tables]
    accounts = []
    for index, table_id in enumerate(room.history_tables):
        for user_id in _regulars(room, index):
            accounts.append(LedgerAccount(kind="seat", user_id=user_id, table_id=table_id,
                                          key=f"seat:{table_id}:{user_id}"))  # fmt: skip
    LedgerAccount.objects.bulk_create(accounts, batch_size=BATCH)
    room.seats = {
        (user_id, table_id): pk
        for pk, user_id, table_id in LedgerAccount.objects.filter(kind="seat").values_list(
            "pk", "user_id", "table_id"
        )
    }
    _fund_seats(room)


def _regulars(room: Room, index: int) -> list[int]:
    players = [room.users[(index * 4 + k) % len(room.users)] for k in range(4)]
    return [*players, room.heavy] if index < HEAVY_TABLES else players


def _fund_seats(room: Room) -> None:
    """Each seat bought in once, from the house (a balanced transaction, as the audit wants)."""
    from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction

    house = LedgerAccount.objects.get(kind="house")
    amount = 10**9
    txns = LedgerTransaction.objects.bulk_create(
        [LedgerTransaction(kind="adjust", memo="bench funding", idempotency_key=f"fund:{pk}",
                           fingerprint="f", amount=amount, created_at=T0) for pk in room.seats.values()],
        batch_size=BATCH,
    )  # fmt: skip
    owners = {pk: user_id for (user_id, _), pk in room.seats.items()}
    entries = []
    for txn, pk in zip(txns, room.seats.values()):
        entries.append(LedgerEntry(transaction=txn, account_id=house.pk, amount=-amount, created_at=T0))
        entries.append(
            LedgerEntry(transaction=txn, account_id=pk, amount=amount, owner_id=owners[pk], created_at=T0)
        )
    LedgerEntry.objects.bulk_create(entries, batch_size=BATCH)


def _fill_hands(room: Room, target: int, heavy_share: float) -> None:
    """Stored hands up to ``target``, each written as settle_hand writes it."""
    import random

    from accounts.models import LedgerEntry, LedgerTransaction
    from games.models import HandPlayer, PlayedHand

    rng = random.Random(room.hands)
    names = {room.heavy: "heavy"}
    while room.hands < target:
        count = min(BATCH, target - room.hands)
        hands, txns, lineups = [], [], []
        for k in range(count):
            n = room.hands + k
            heavy = rng.random() < heavy_share
            index = rng.randrange(HEAVY_TABLES) if heavy else rng.randrange(HISTORY_TABLES)
            table_id = room.history_tables[index]
            regulars = _regulars(room, index)
            first = room.heavy if heavy else rng.choice(regulars[:4])
            second = rng.choice([u for u in regulars[:4] if u != first])
            players = [first, second] if rng.random() < 0.5 else [second, first]
            number = room.numbers.get(table_id, 0) + 1
            room.numbers[table_id] = number
            started = T0 + timedelta(seconds=30 * n)
            paid = 10 * rng.randint(1, 40)
            hands.append(PlayedHand(
                table_id=table_id, number=number, status="finished", started_at=started,
                ended_at=started + timedelta(seconds=40), server_seed_hash="h" * 64, server_seed="s" * 64,
                pot=2 * paid, winner_id=players[0], client_seeds=["", ""],
                record=_record(table_id, number, [names.get(p, f"p{p}") for p in players], started, 2 * paid),
            ))  # fmt: skip
            txns.append(LedgerTransaction(
                kind="hand_settle", memo=f"hand {number} at table {table_id}",
                idempotency_key=f"hand:{table_id}:{number}", fingerprint="f", amount=paid,
                created_at=started + timedelta(seconds=40),
            ))  # fmt: skip
            lineups.append((table_id, players, paid, started))
        hands = PlayedHand.objects.bulk_create(hands, batch_size=BATCH)
        txns = LedgerTransaction.objects.bulk_create(txns, batch_size=BATCH)
        rows, entries = [], []
        for hand, txn, (table_id, players, paid, started) in zip(hands, txns, lineups):
            for position, (user_id, delta) in enumerate(zip(players, (paid, -paid))):
                rows.append(HandPlayer(
                    hand=hand, user_id=user_id, position=position, chips_before=5_000,
                    chips_after=5_000 + delta, won=delta > 0, pot_won=2 * paid if delta > 0 else 0,
                    started_at=started, hand_status="finished",
                ))  # fmt: skip
                entries.append(LedgerEntry(
                    transaction=txn, account_id=room.seats[(user_id, table_id)], amount=delta,
                    owner_id=user_id, created_at=txn.created_at,
                ))  # fmt: skip
        HandPlayer.objects.bulk_create(rows, batch_size=BATCH)
        LedgerEntry.objects.bulk_create(entries, batch_size=BATCH)
        room.hands += count


def _settle_balances() -> None:
    """Every balance set to the sum of its entries."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE accounts_ledgeraccount a SET balance = s.total FROM "
            "(SELECT account_id, SUM(amount) AS total FROM accounts_ledgerentry GROUP BY account_id) s "
            "WHERE s.account_id = a.id"
        )


def _fill_open_tables(room: Room, target: int) -> None:
    """Open public tables up to ``target``: a third with someone waiting, one in ten full."""
    from games.models import STAKES, Seat, Table

    if target <= room.open_tables:
        return

    def seat_count(n: int) -> int:
        return 2 + n % 5

    def taken(n: int) -> int:
        return seat_count(n) if n % 10 == 0 else (1 if n % 3 == 0 else 0)

    # Each table carries its count of seats as games.live.seat_rows keeps it (the lobby sorts by it).
    made = Table.objects.bulk_create(
        [Table(name=f"Open {n}", stake=STAKES[n % len(STAKES)], seat_count=seat_count(n),
               seats_taken=taken(n)) for n in range(room.open_tables, target)],
        batch_size=BATCH,
    )  # fmt: skip
    seats = []
    for offset, table in enumerate(made):
        n = room.open_tables + offset
        users = [room.users[(n + k) % len(room.users)] for k in range(taken(n))]
        seats += [Seat(table=table, user_id=user_id, position=k) for k, user_id in enumerate(users)]
    Seat.objects.bulk_create(seats, batch_size=BATCH)
    room.open_tables = target
    _check_seat_counts()


def _check_seat_counts() -> None:
    """The lobby's figures stand on each table's count agreeing with its Seat rows."""
    from django.db.models import Count, F

    from games.models import Table

    wrong = Table.objects.annotate(real=Count("seat_rows")).exclude(seats_taken=F("real")).count()
    if wrong:
        raise SystemExit(f"{wrong} tables count seats that are not there (or miss some)")


# ---------------------------------------------------------------- measuring


def _pages(room: Room) -> dict[str, tuple[str, str]]:
    """name -> (who asks, url)."""
    from games.models import HandPlayer

    rows = HandPlayer.objects.filter(user_id=room.heavy, hand_status__in=["finished", "cancelled"])
    played = rows.count()
    # Halfway down the heavy player's history: the page an "Older" link reaches after many clicks.
    deep = (
        rows.order_by("-started_at", "-hand_id").values_list("hand_id", flat=True)[played // 2]
        if played
        else None
    )
    return {
        "/hands/": ("heavy", "/hands/"),
        "/hands/ deep": ("heavy", f"/hands/?older_than={deep}" if deep else "/hands/"),
        "/hands/ won at stake 10": ("heavy", "/hands/?result=won&stake=10"),
        "/profile/": ("heavy", "/profile/"),
        "/profile/ (a new player)": ("fresh", "/profile/"),
        "/lobby/": ("heavy", "/lobby/"),
        "/lobby/?stake=50": ("heavy", "/lobby/?stake=50"),
        "/lobby/ page 5": ("heavy", "/lobby/?page=5"),
        "staff: hands": ("boss", "/admin/games/playedhand/"),
        "staff: hands of a player": ("boss", "/admin/games/playedhand/?player=heavy"),
        "staff: ledger entries": ("boss", "/admin/accounts/ledgerentry/"),
        "staff: ledger transactions": ("boss", "/admin/accounts/ledgertransaction/"),
        "staff: table events": ("boss", "/admin/games/tableevent/"),
        "staff: users": ("boss", "/admin/accounts/user/"),
    }


def _measure(room: Room, clients: dict[str, Any], requests: int) -> dict[str, dict[str, float]]:
    from django.db import connection

    out = {}
    for name, (who, url) in _pages(room).items():
        client = clients[who]
        captured: list[str] = []

        def count(execute, sql, params, many, context, captured=captured):
            captured.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"{name}: {url} answered {response.status_code}")
        # Wall-clock, and beside it what this process spent (CPU) and what waited on the database:
        # on a shared machine the wall-clock median moves 2-3x between runs while the other two
        # barely do, so they tell growth from noise.
        times, cpu, db = [], [], []
        for _ in range(requests):
            waited = [0.0]

            def timed(execute, sql, params, many, context, waited=waited):
                began = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    waited[0] += time.perf_counter() - began

            began, began_cpu = time.perf_counter(), time.process_time()
            with connection.execute_wrapper(timed):
                client.get(url)
            times.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            db.append(waited[0] * 1000)
        out[name] = {
            "ms": round(statistics.median(times), 2),
            "cpu_ms": round(statistics.median(cpu), 2),
            "db_ms": round(statistics.median(db), 2),
            "queries": len(captured),
        }
    out["manage.py audit_chips"] = {"ms": round(_audit_ms(), 1), "queries": 0}
    return out


def _audit_ms() -> float:
    from io import StringIO

    from django.core.management import call_command

    began = time.perf_counter()
    call_command("audit_chips", stdout=StringIO())
    return (time.perf_counter() - began) * 1000


def _clients(room: Room) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    users = get_user_model().objects
    fresh = users.create_user(username="fresh", password="growth-pass-91")
    clients = {}
    for name, user in (
        ("heavy", users.get(pk=room.heavy)),
        ("boss", users.get(pk=room.staff)),
        ("fresh", fresh),
    ):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        clients[name] = client
    return clients


# ---------------------------------------------------------------- the run


def run(*, sizes: list[int], tables: int, heavy_share: float, requests: int, server: str) -> dict[str, Any]:
    name = f"svara_bench_growth_{os.getpid()}"
    _admin_sql(server, f'CREATE DATABASE "{name}"')
    try:
        _setup(_database_url(server, name))
        room = Room()
        _start(room)
        clients = _clients(room)
        results = []
        biggest = max(sizes) or 1
        for size in sorted(sizes):
            began = time.perf_counter()
            _fill_hands(room, size, heavy_share)
            _fill_open_tables(room, max(3, round(tables * size / biggest)))
            _settle_balances()
            _vacuum()
            filled = time.perf_counter() - began
            pages = _measure(room, clients, requests)
            results.append(_size_row(room, pages, filled))
            _print_size(results[-1])
        return {"sizes": results, "requests": requests, "heavy_share": heavy_share, "when": _now()}
    finally:
        from django.db import connections

        connections.close_all()
        _close_pool()
        _admin_sql(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _close_pool() -> None:
    from django.db import connection

    pool = getattr(connection, "pool", None)
    if pool is not None:
        pool.close()


def _vacuum() -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    with psycopg.connect(
        dbname=db["NAME"], user=db["USER"], host=db["HOST"], port=db["PORT"] or 5432, password=db["PASSWORD"],
        autocommit=True,
    ) as conn:  # fmt: skip
        conn.execute("VACUUM ANALYZE")


def _size_row(room: Room, pages: dict[str, dict[str, float]], filled: float) -> dict[str, Any]:
    from accounts.models import LedgerEntry
    from games.models import HandPlayer

    return {
        "hands": room.hands,
        "entries": LedgerEntry.objects.count(),
        "open_tables": room.open_tables,
        "heavy_player_hands": HandPlayer.objects.filter(user_id=room.heavy).count(),
        "fill_seconds": round(filled, 1),
        "pages": pages,
    }


def _print_size(row: dict[str, Any]) -> None:
    print(
        f"\n{row['hands']:,} hands, {row['entries']:,} entries, {row['open_tables']:,} open tables, "
        f"heavy player {row['heavy_player_hands']:,} hands (filled in {row['fill_seconds']} s)"
    )
    print(f"  {'page':<32} {'median ms':>10} {'cpu ms':>7} {'db ms':>7} {'queries':>8}")
    for page, figures in row["pages"].items():
        cpu, db = figures.get("cpu_ms", float("nan")), figures.get("db_ms", float("nan"))
        print(f"  {page:<32} {figures['ms']:>10.2f} {cpu:>7.2f} {db:>7.2f} {int(figures['queries']):>8}")
    sys.stdout.flush()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _summary(report: dict[str, Any]) -> None:
    sizes = report["sizes"]
    if len(sizes) < 2:
        return
    first, last = sizes[0], sizes[-1]
    print(f"\n{'page':<32} {'first ms':>9} {'last ms':>9} {'ratio':>6} {'cpu ratio':>9}")
    for page, figures in last["pages"].items():
        before = first["pages"][page]
        ratio = figures["ms"] / before["ms"] if before["ms"] else 0
        cpu_ratio = figures.get("cpu_ms", 0) / before["cpu_ms"] if before.get("cpu_ms") else 0
        print(f"{page:<32} {before['ms']:>9.2f} {figures['ms']:>9.2f} {ratio:>6.2f} {cpu_ratio:>9.2f}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", default="10,10000", help="sizes, in stored hands (comma-separated)")
    parser.add_argument("--tables", type=int, default=100, help="open tables at the largest size")
    parser.add_argument(
        "--heavy-share", type=float, default=0.2, help="share of hands the heavy player plays"
    )
    parser.add_argument("--requests", type=int, default=20, help="requests per page (the median is shown)")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or DEFAULT_SERVER,
        help="a PostgreSQL server (the database named is not used: the bench makes its own)",
    )
    parser.add_argument("--out", default=str(RESULTS / "growth.json"))
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.hands.split(",") if s.strip()]
    report = run(
        sizes=sizes,
        tables=args.tables,
        heavy_share=args.heavy_share,
        requests=args.requests,
        server=args.database_url,
    )
    report["command"] = "python -m bench.growth " + " ".join(argv if argv is not None else sys.argv[1:])
    _summary(report)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
