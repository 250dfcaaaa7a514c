"""The kinds of table as policies (games.kinds): the code asks a table's kind, it never names one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import kinds
from games.live.document import new_table_doc, seat_entry, table_kind
from games.models import LOBBY_TABLES, Table

ROOT = Path(__file__).resolve().parents[2]
# What branching on the old flag looked like: the model's field and its lookups, the document's
# key, the seats' practice chips.
FLAG = re.compile(
    r"(?<!games)(?<!live)\.practice\b(?!-)|\bpractice\s*=|__practice\b|[\"']practice[\"']\s*\]|get\([\"']practice[\"']\)|practice_chips"
    r"|[\"']practice[\"']\s*:"
)
# The kind's own places: its policy, its commands and pages, and the migrations (history).
ITS_OWN = ("games/kinds.py", "games/live/practice.py", "games/practice/", "/migrations/")


def code_files() -> list[Path]:
    found = []
    for top in ("games", "accounts", "svara_site", "bench", "deploy", "templates"):
        found += [p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".html")]
    return found


def test_no_code_outside_the_kind_branches_on_the_practice_flag():
    files = code_files()
    assert len(files) > 100  # the walk found the code
    offending = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files
        if not any(
            own in str(path.relative_to(ROOT)) or own in f"/{path.relative_to(ROOT)}" for own in ITS_OWN
        )
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if FLAG.search(line)
    ]
    assert offending == []


def test_the_flag_pattern_finds_the_old_branches():
    # The check above could pass by matching nothing: each form the flag took is caught.
    for old in (
        "if table.practice:",
        "Table.objects.filter(practice=False)",
        "hand__table__practice=False",
        'doc["table"].get("practice")',
        'view["table"]["practice"]',
        "seat.practice_chips or 0",
        '{"practice": False}',
        "{% if table.practice %}",
    ):
        assert FLAG.search(old), old
    for fine in (
        'path("practice/", views.start, name="practice")',
        "from games.live.practice import bot_user",
        'page.locator("main form.practice-levels button[value=easy]")',  # a CSS class, not the flag
    ):
        assert not FLAG.search(fine), fine


def test_a_table_of_each_offered_kind_answers_by_its_policy(db):
    cash = Table.objects.create(name="oak", stake=10)
    drill = Table.objects.create(name="drill", stake=10, kind=kinds.PRACTICE.name)
    assert (cash.policy, drill.policy) == (kinds.CASH, kinds.PRACTICE)
    assert list(Table.objects.filter(LOBBY_TABLES).values_list("name", flat=True)) == ["oak"]
    assert [k.name for k in kinds.OFFERED] == [name for name, _label in Table._meta.get_field("kind").choices]


def test_the_kinds_differ_where_the_rules_say():
    cash, practice, tournament = kinds.CASH, kinds.PRACTICE, kinds.TOURNAMENT
    assert cash.money and cash.open_seats and cash.may_add_chips and cash.leaving is kinds.Leaving.CASH_OUT
    assert cash.in_lobby and cash.counted and cash.time_bank and cash.broke is kinds.Broke.SITS_OUT
    assert not (practice.money or practice.open_seats or practice.may_add_chips or practice.in_lobby)
    assert not (practice.counted or practice.time_bank or practice.records_public)
    assert practice.broke is kinds.Broke.NEW_GAME and practice.leaving is kinds.Leaving.CLOSES_TABLE
    # RULES.md §8: tournament chips only, no adding or cashing out, absent players dealt in and
    # folded, a player out of chips is out; not offered yet.
    assert not (tournament.money or tournament.may_add_chips or tournament.open_seats)
    assert tournament.leaving is kinds.Leaving.STAYS and tournament.broke is kinds.Broke.OUT
    assert tournament.absent_dealt_in and tournament not in kinds.OFFERED
    assert kinds.names_where(in_lobby=True) == ["cash"] and kinds.names_where(money=False) == ["practice"]


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        ({"kind": "practice"}, kinds.PRACTICE),
        ({"kind": "cash"}, kinds.CASH),
        # A document written before kinds, still in the store when they were deployed.
        ({"practice": True}, kinds.PRACTICE),
        ({"practice": False}, kinds.CASH),
    ],
)
def test_a_documents_kind_is_read_from_its_settings(given, kind):
    table = {"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
    doc = new_table_doc(table=table | given, seats=[seat_entry(user_id=1, name="ann", chips=500), None])
    assert table_kind(doc) is kind
