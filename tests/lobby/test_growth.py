"""The lobby with many open tables: the wanted ones first across all stakes, every table on some
page, "Play now" over every open table, a fixed number of queries a page, and one render of a
change per list and language shared by the lobby sockets."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import wallet_adjust
from games.live import service
from games.live.seat_rows import add_seat_row
from games.lobby import consumers
from games.lobby import service as lobby
from games.models import STAKES, Seat, Table
from svara_site.asgi import application
from tests.live.tablekit import make_player, make_table

ROW_ID = re.compile(r'data-table-id="(\d+)"')


def rich_player(name: str, *, staff):
    user = make_player(name)
    wallet_adjust(user=user, amount=60_000, reason="test: enough for stake 1,000", staff_user=staff)
    return user


def make_staff():
    staff = make_player("staff")
    staff.is_staff = staff.is_superuser = True  # wallet_adjust needs its permission
    staff.save()
    return staff


def many_empty_tables(count: int, *, stake: int = 10) -> list[Table]:
    return Table.objects.bulk_create(
        [Table(name=f"Empty {n}", stake=stake, seat_count=6) for n in range(count)]
    )


def tables_with_someone(count: int, *, stake: int = 10) -> list[Table]:
    """Tables where one player waits (the same one at each): the lobby lists every one of them."""
    tables = many_empty_tables(count, stake=stake)
    sitter = make_player("sitter")
    for table in tables:
        add_seat_row(table=table, user=sitter, position=0)
    return tables


def listed_ids(text: str) -> list[int]:
    return [int(found) for found in ROW_ID.findall(text)]


@pytest.fixture
def room_of_250():
    """230 empty tables at stake 10 (opened first), then 20 at stake 1,000 with one player each."""
    staff = make_staff()
    many_empty_tables(230)
    waiting = []
    for n in range(20):
        table = make_table(name=f"Waiting {n}", stake=1000, seat_count=6)
        async_to_sync(service.table_sit)(
            user=rich_player(f"w{n}", staff=staff), table_id=table.pk, position=0, buy_in=table.min_buy_in
        )
        waiting.append(table.pk)
    return staff, waiting


@pytest.mark.django_db(transaction=True)
def test_the_tables_where_someone_waits_come_first_and_spare_empty_tables_leave_the_list(client, room_of_250):
    staff, waiting = room_of_250
    first = listed_ids(client.get("/lobby/").content.decode())
    assert first[:20] == sorted(waiting)  # the highest stake, yet first: someone waits there
    # Of the 230 tables nobody sits at, only stake 10's oldest stays: the table to sit down at.
    oldest_empty = Table.objects.filter(stake=10).order_by("pk").values_list("pk", flat=True).first()
    assert first[20:] == [oldest_empty]
    assert client.get("/lobby/?page=2").content.decode().count("data-table-id") == len(first)  # one page
    # The stake filter the same way; a hidden table still opens by its address.
    text = client.get("/lobby/?stake=1000").content.decode()
    assert sorted(listed_ids(text)) == sorted(waiting)
    assert listed_ids(client.get("/lobby/?stake=10").content.decode()) == [oldest_empty]
    client.force_login(make_player("visitor"))
    hidden = Table.objects.filter(stake=10).order_by("-pk").first()
    assert client.get(f"/table/{hidden.pk}/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_every_table_where_someone_sits_is_on_some_page(client):
    tables = tables_with_someone(70)
    seen: list[int] = []
    pages = -(-70 // lobby.LOBBY_PAGE_SIZE)
    for number in range(1, pages + 1):
        seen += listed_ids(client.get(f"/lobby/?page={number}").content.decode())
    assert sorted(seen) == sorted(t.pk for t in tables)
    assert len(seen) == 70  # no table twice


@pytest.mark.django_db(transaction=True)
def test_play_now_finds_a_waiting_table_among_250(client, room_of_250):
    staff, waiting = room_of_250
    bob = rich_player("bob", staff=staff)
    client.force_login(bob)
    response = client.post("/lobby/play-now/")
    seat = Seat.objects.get(user=bob)
    assert seat.table_id in waiting
    assert response["Location"] == f"/table/{seat.table_id}/"
    assert Table.objects.count() == 250  # seated, not a new table opened


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["abc", "0", "-1", "", "1.5", "99999999999999999999999", "٣", "9" * 5000])
def test_a_bad_page_number_gives_the_first_or_last_page(client, raw):
    tables_with_someone(40)
    response = client.get("/lobby/", {"page": raw})
    assert response.status_code == 200
    ids = listed_ids(response.content.decode())
    assert len(ids) in (lobby.LOBBY_PAGE_SIZE, 40 - lobby.LOBBY_PAGE_SIZE)
    assert client.get("/lobby/tables/", {"page": raw}).status_code == 200


def queries_of(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/lobby/", "/lobby/?stake=10", "/lobby/?page=2", "/lobby/tables/"])
def test_a_lobby_page_costs_the_same_queries_whatever_the_tables(client, url):
    ann, bob = make_player("ann"), make_player("bob")
    client.force_login(ann)
    few = many_empty_tables(2)
    add_seat_row(table=few[0], user=bob, position=0)
    queries_of(client, url)  # the session and the like, once
    small = queries_of(client, url)
    tables = many_empty_tables(70)
    for n, table in enumerate(tables[:40]):
        add_seat_row(table=table, user=make_player(f"p{n}"), position=0)
    assert queries_of(client, url) == small


@pytest.mark.django_db(transaction=True)
async def test_a_change_is_rendered_once_per_list_and_language_for_all_lobby_sockets(monkeypatch):
    renders: list[tuple] = []
    real = consumers.render_lobby_tables

    def counted(**kwargs):
        renders.append(tuple(sorted(kwargs.items())))
        return real(**kwargs)

    monkeypatch.setattr(consumers, "render_lobby_tables", counted)
    ann = await sync_to_async(make_player)("ann")
    small = await sync_to_async(make_table)(name="Small", stake=10)

    def socket(path: str, language: str) -> WebsocketCommunicator:
        return WebsocketCommunicator(
            application,
            path,
            headers=[
                (b"origin", b"http://127.0.0.1:8000"),
                (b"host", b"127.0.0.1"),
                (b"accept-language", language.encode()),
            ],
        )

    sockets = [
        socket("/ws/lobby/?stake=10", "en"),
        socket("/ws/lobby/?stake=10", "en"),
        socket("/ws/lobby/?stake=10", "en"),
        socket("/ws/lobby/?stake=10", "bg"),
        socket("/ws/lobby/", "en"),
    ]
    for comm in sockets:
        assert (await comm.connect())[0]
        await comm.receive_from(timeout=3)
    renders.clear()

    await service.table_sit(user=ann, table_id=small.pk, position=0, buy_in=500)
    updates = [await comm.receive_from(timeout=3) for comm in sockets]
    assert all("1/2" in html and "ann" in html for html in updates)
    assert "Отворени маси" in updates[3]
    # Three lists: stake 10 in English, stake 10 in Bulgarian, every stake in English.
    assert len(renders) == 3
    assert set(renders) == {
        (("language", "en"), ("page", 1), ("stake", 10)),
        (("language", "bg"), ("page", 1), ("stake", 10)),
        (("language", "en"), ("page", 1), ("stake", None)),
    }
    for comm in sockets:
        await comm.disconnect()


def table_queries(run) -> list[str]:
    """The SQL of the queries ``run`` makes that read the lobby's tables in an order."""
    with CaptureQueriesContext(connection) as captured:
        run()
    # The pager's count of the listed tables is no read in an order (the ORDER BY in it is the
    # subqueries' that keep one empty table per stake).
    return [
        q["sql"]
        for q in captured
        if 'FROM "games_table"' in q["sql"]
        and "ORDER BY" in q["sql"]
        and not q["sql"].startswith("SELECT COUNT(*)")
    ]


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_index_gives_each_lobby_list_in_order_without_counting_or_sorting_the_tables(postgres_db):
    """With thousands of open tables the lobby's page, its stake filter, a later page and "Play now"
    read their rows from an index in their order: no count of seats, no sort of every table."""
    # Stored counts from 0 to 6 (no Seat rows behind them: only the plans matter here).
    stakes = [STAKES[n % len(STAKES)] for n in range(3_000)]
    Table.objects.bulk_create(
        [Table(name=f"T{n}", stake=stake, seat_count=6, seats_taken=n % 7) for n, stake in enumerate(stakes)]
    )
    with connection.cursor() as cursor:
        cursor.execute('ANALYZE "games_table"')
    runs = {
        "table_lobby_ranked": [lambda: lobby.lobby_page(), lambda: lobby.lobby_page(page=5)],
        "table_lobby_stake": [lambda: lobby.lobby_page(stake=50)],
        "table_play_now": [lambda: lobby._candidates(balance=2_000, limit=lobby.PLAY_NOW_ATTEMPTS)],
    }
    for index, calls in runs.items():
        for run in calls:
            sqls = table_queries(run)
            assert sqls
            for sql in sqls:
                assert "COUNT(" not in sql and "GROUP BY" not in sql, sql
                with connection.cursor() as cursor:
                    cursor.execute(f"EXPLAIN {sql}")
                    plan = "\n".join(row[0] for row in cursor.fetchall())
                assert index in plan and "Sort" not in plan, plan
