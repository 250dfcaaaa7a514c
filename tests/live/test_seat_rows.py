"""Each table's stored count of seats taken (and the lobby's rank made from it) never drifts from
its Seat rows: random sits and leaves through the database services, each path that seats or
unseats a player (the table's service, staff, a ban, practice), and players sitting and leaving
at the same moment on PostgreSQL."""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.services import ban_user
from games.live import practice, records, service, staff
from games.live.document import Refused
from games.live.seat_rows import add_seat_row, remove_seat_rows
from games.models import RANK_EMPTY, RANK_FULL, RANK_WAITING, Seat, Table
from tests.accounts.test_concurrency import run_together
from tests.live.tablekit import make_player, make_table


def drifted() -> list[tuple[int, int, int]]:
    """(table, stored count, Seat rows) of every table whose stored count is wrong."""
    rows = Table.objects.annotate(real=Count("seat_rows")).exclude(seats_taken=F("real"))
    return list(rows.values_list("pk", "seats_taken", "real"))


def expected_rank(table: Table) -> int:
    if table.seats_taken == 0:
        return RANK_EMPTY
    return RANK_FULL if table.seats_taken >= table.seat_count else RANK_WAITING


def assert_counts_match() -> None:
    assert drifted() == []
    for table in Table.objects.all():
        assert table.wait_rank == expected_rank(table), table


# ---------------------------------------------------------------- random sequences

PLAYERS, TABLES = 4, 3

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("sit"),
            st.integers(0, PLAYERS - 1),
            st.integers(0, TABLES - 1),
            st.integers(-1, 6),  # -1 and 6: no such seat (refused)
            st.sampled_from([100, 200, 500, 2_000]),  # 100 and 2,000: out of the range (refused)
        ),
        st.tuples(st.just("leave"), st.integers(0, PLAYERS - 1), st.integers(0, TABLES - 1)),
        st.tuples(st.just("empty"), st.integers(0, TABLES - 1)),
    ),
    max_size=25,
)


@pytest.fixture
def small_room():
    players = [make_player(f"p{n}") for n in range(PLAYERS)]
    # Two seats, three and six: full, waiting and empty tables all come up.
    tables = [make_table(name=f"t{n}", seat_count=size) for n, size in enumerate((2, 3, 6))]
    return players, tables


@pytest.mark.django_db
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(sequence=steps)
def test_random_sits_and_leaves_keep_every_count_true(small_room, sequence) -> None:
    players, tables = small_room
    with transaction.atomic():  # each example starts from the same empty room
        for number, step in enumerate(sequence):
            if step[0] == "sit":
                _, who, where, position, buy_in = step
                # Refused (taken, out of range, already seated, the wallet empty): nothing counted.
                with contextlib.suppress(Refused):
                    records.sit_down(
                        user=players[who], table_id=tables[where].pk, position=position, buy_in=buy_in
                    )
            elif step[0] == "leave":
                _, who, where = step
                records.leave_seat(user_id=players[who].pk, table_id=tables[where].pk, key=f"leave:{number}")
            else:
                remove_seat_rows(table_id=tables[step[1]].pk)
            assert_counts_match()
        transaction.set_rollback(True)


# ---------------------------------------------------------------- each path


@pytest.mark.django_db
def test_a_refused_seat_counts_nothing_and_a_repeated_leave_frees_nothing() -> None:
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(seat_count=2)
    records.sit_down(user=ann, table_id=table.pk, position=0, buy_in=500)
    with pytest.raises(Refused):
        records.sit_down(user=bob, table_id=table.pk, position=0, buy_in=500)  # taken
    with pytest.raises(Refused):
        records.sit_down(user=bob, table_id=table.pk, position=1, buy_in=5_000)  # more than the most
    table.refresh_from_db()
    assert (table.seats_taken, table.wait_rank) == (1, RANK_WAITING)
    records.leave_seat(user_id=ann.pk, table_id=table.pk, key="once")
    records.leave_seat(user_id=ann.pk, table_id=table.pk, key="once")
    assert remove_seat_rows(table_id=table.pk, user_id=ann.pk) == 0
    assert remove_seat_rows(table_id=10**9) == 0  # no such table: nothing, no error
    table.refresh_from_db()
    assert (table.seats_taken, table.wait_rank) == (0, RANK_EMPTY)
    assert_counts_match()


@pytest.mark.django_db
def test_a_seat_the_unique_keys_refuse_is_not_counted() -> None:
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(seat_count=2)
    add_seat_row(table=table, user=ann, position=0)
    with pytest.raises(Exception), transaction.atomic():  # noqa: B017 (the backends' IntegrityError)
        add_seat_row(table=table, user=bob, position=0)
    assert_counts_match()
    assert Table.objects.get(pk=table.pk).seats_taken == 1


@pytest.mark.django_db(transaction=True)
def test_the_table_service_staff_and_a_ban_keep_the_count() -> None:
    ann, bob, cem, dan = (make_player(n) for n in ("ann", "bob", "cem", "dan"))
    boss = get_user_model().objects.create_superuser(username="boss", password="pw-boss-123")
    table, other = make_table(seat_count=4), make_table(seat_count=2)
    for position, user in enumerate((ann, bob, cem, dan)):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=200)
    async_to_sync(service.table_sit)(user=dan, table_id=other.pk, position=0, buy_in=200)
    assert Table.objects.get(pk=table.pk).wait_rank == RANK_FULL
    assert_counts_match()

    async_to_sync(service.table_leave)(user=ann, table_id=table.pk)
    assert Table.objects.get(pk=table.pk).seats_taken == 3
    async_to_sync(staff.seat_remove)(table_id=table.pk, user=bob, staff_user=boss, reason="abuse")
    assert Table.objects.get(pk=table.pk).seats_taken == 2
    ban_user(user=dan, reason="collusion", staff_user=boss)  # ejected from both tables
    assert not Seat.objects.filter(user=dan).exists()
    assert Table.objects.get(pk=other.pk).seats_taken == 0
    assert_counts_match()

    async_to_sync(staff.table_close)(table_id=table.pk, staff_user=boss, reason="closing time")
    assert Table.objects.get(pk=table.pk).seats_taken == 0
    assert_counts_match()


@pytest.mark.django_db(transaction=True)
def test_practice_tables_count_both_seats_and_none_once_closed() -> None:
    ann = make_player("ann")
    first = async_to_sync(practice.practice_start)(user=ann, level="easy")
    assert Table.objects.get(pk=first).seats_taken == 2
    second = async_to_sync(practice.practice_start)(user=ann, level="hard")  # closes the first
    assert Table.objects.get(pk=first).seats_taken == 0
    assert Table.objects.get(pk=second).seats_taken == 2
    assert_counts_match()


# ---------------------------------------------------------------- at the same moment


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_players_sitting_and_leaving_at_once_are_each_counted(postgres_db) -> None:
    players = [make_player(f"p{n}") for n in range(8)]
    table = make_table(seat_count=6)

    def sit(user, position: int):
        return lambda: records.sit_down(user=user, table_id=table.pk, position=position, buy_in=200)

    # Six seats for six players, and two more wanting seats 0 and 1 at the same moment.
    late = [sit(players[6], 0), sit(players[7], 1)]
    results = run_together([sit(u, n) for n, u in enumerate(players[:6])] + late)
    outcomes = Counter(type(r).__name__ for r in results)
    assert outcomes == Counter({"dict": 6, "Refused": 2})
    assert Table.objects.get(pk=table.pk).seats_taken == 6
    assert_counts_match()

    seated = list(Seat.objects.filter(table=table).values_list("user_id", "position"))

    def leave(user_id: int):
        return lambda: records.leave_seat(user_id=user_id, table_id=table.pk, key=f"leave:{user_id}")

    # Everyone leaves (twice each: a repeat frees nothing) while two others sit in seats being freed.
    free_two = [u for u, position in seated if position in (2, 3)]
    calls = [leave(u) for u, _ in seated] * 2
    calls += [sit(players[6], 2), sit(players[7], 3)]
    results = run_together(calls)
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, Refused)]
    assert free_two  # the seats the late two wanted were someone's
    assert_counts_match()


def test_no_other_code_writes_seat_rows() -> None:
    """The count is only as true as this: a Seat row made or removed anywhere but seat_rows.py would
    not be counted (bench/growth.py fills rows in bulk and sets the counts itself)."""
    root = Path(__file__).resolve().parents[2]
    writes = re.compile(
        r"Seat\.objects\.(create|bulk_create|get_or_create|update_or_create)\b"
        r"|Seat\.objects\.[^\n]*\.delete\(|(?<!class )\bSeat\(|seat_rows\.[^\n]*\.delete\("
    )
    found = []
    for path in [*root.joinpath("games").rglob("*.py"), *root.joinpath("accounts").rglob("*.py")]:
        if "migrations" in path.parts or path.name == "seat_rows.py":
            continue
        found += [f"{path.relative_to(root)}: {m.group(0)}" for m in writes.finditer(path.read_text())]
    assert found == []
