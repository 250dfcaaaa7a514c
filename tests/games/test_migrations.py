"""Data migrations of the games app, run on a database with rows in it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import StateApps

from games.models import LOBBY_TABLES, RANK_EMPTY, RANK_FULL, RANK_WAITING, Table

BEFORE_COUNTS = ("games", "0013_table_event_time_bank")


def migrate_to(node: tuple[str, str]) -> StateApps:
    """The database at ``node`` for its app, every other app at its latest; the models of then."""
    executor = MigrationExecutor(connection)
    targets = [leaf for leaf in executor.loader.graph.leaf_nodes() if leaf[0] != node[0]] + [node]
    executor.migrate(targets)
    executor.loader.build_graph()  # what the database holds now
    return executor.loader.project_state(targets).apps


def migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_seats_of_existing_tables_are_counted_when_the_count_arrives():
    old = migrate_to(BEFORE_COUNTS)
    user_model, table_model = old.get_model("accounts", "User"), old.get_model("games", "Table")
    seat_model = old.get_model("games", "Seat")
    users = [user_model.objects.create(username=f"p{n}", password="!") for n in range(3)]
    full, waiting, empty = (
        table_model.objects.create(name=name, stake=10, seat_count=2, invite_code=name)
        for name in ("full", "waiting", "empty")
    )
    for position, user in enumerate(users[:2]):
        seat_model.objects.create(table=full, user=user, position=position)
    seat_model.objects.create(table=waiting, user=users[2], position=1)

    migrate_to_latest()
    counted = {t.name: (t.seats_taken, t.wait_rank) for t in Table.objects.all()}
    assert counted == {"full": (2, RANK_FULL), "waiting": (1, RANK_WAITING), "empty": (0, RANK_EMPTY)}


BEFORE_KINDS = ("games", "0016_hand_rows_keep_the_pot_won")


@pytest.mark.django_db(transaction=True)
def test_the_practice_flag_becomes_the_tables_kind_and_back():
    old = migrate_to(BEFORE_KINDS)
    user_model, table_model = old.get_model("accounts", "User"), old.get_model("games", "Table")
    seat_model = old.get_model("games", "Seat")
    ann = user_model.objects.create(username="ann", password="!")
    drill = table_model.objects.create(name="drill", stake=10, seat_count=2, invite_code="d", practice=True)
    table_model.objects.create(name="oak", stake=10, seat_count=2, invite_code="o")
    seat_model.objects.create(table=drill, user=ann, position=0, practice_chips=430)

    migrate_to_latest()
    assert dict(Table.objects.values_list("name", "kind")) == {"drill": "practice", "oak": "cash"}
    assert list(Table.objects.get(name="drill").seat_rows.values_list("table_chips", flat=True)) == [430]
    # The lobby's indexes hold the cash table only (their condition is on the kind now).
    assert list(Table.objects.filter(LOBBY_TABLES).values_list("name", flat=True)) == ["oak"]

    back = migrate_to(BEFORE_KINDS)
    assert dict(back.get_model("games", "Table").objects.values_list("name", "practice")) == {
        "drill": True,
        "oak": False,
    }
    migrate_to_latest()
