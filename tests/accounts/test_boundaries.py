"""What ``accounts`` knows of the other parts: the kinds of staff action each part registers, its
own refusals for staff rights (not the ledger's), and no page or permission of ``games`` by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils.translation import gettext_lazy

from accounts import staff_kinds as account_kinds
from accounts.ledger.errors import LedgerError
from accounts.models import StaffAction
from accounts.services import ban_user, wallet_adjust, wallet_balance
from accounts.staff_log import kinds
from accounts.staff_log.errors import AlreadyDone, BadStaffForm, NotPermitted, StaffRefusal
from games import staff_kinds as game_kinds

ROOT = Path(__file__).resolve().parents[2]


def test_each_part_registers_its_own_staff_actions():
    registered = [name for name, _label in kinds.kind_choices()]
    ours = [k.name for k in vars(account_kinds).values() if isinstance(k, kinds.StaffKind)]
    theirs = [k.name for k in vars(game_kinds).values() if isinstance(k, kinds.StaffKind)]
    assert len(ours) == 6 and len(theirs) == 7  # games: tables, seats, chat, reports, tournaments
    assert sorted(registered) == sorted(ours + theirs)
    # The log reads its choices from the registry: a row shows its kind's label.
    assert dict(StaffAction._meta.get_field("kind").choices)["table_close"] == "table closed"
    # Every games permission is the games app's to name: accounts' kinds name only its own.
    assert all(
        k.permission is None or k.permission.startswith("accounts.")
        for k in vars(account_kinds).values()
        if isinstance(k, kinds.StaffKind)
    )
    assert all(
        k.permission.startswith("games.") for k in vars(game_kinds).values() if isinstance(k, kinds.StaffKind)
    )


def test_a_kind_registered_twice_differently_is_a_mistake():
    kinds.register(game_kinds.TABLE_CLOSE)  # the same again: nothing changes
    clash = kinds.StaffKind("table_close", gettext_lazy("table closed"), "games.other", "nope")
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(clash)
    assert kinds.kind_named("table_close") is game_kinds.TABLE_CLOSE


def test_staff_refusals_are_their_own_not_the_ledgers():
    for refusal in (NotPermitted, AlreadyDone, BadStaffForm):
        assert issubclass(refusal, StaffRefusal) and not issubclass(refusal, LedgerError)


@pytest.mark.django_db
def test_a_staff_member_without_the_right_is_refused_as_staff_and_nothing_moves(make_user):
    player, clerk = make_user(), make_user(is_staff=True)
    before = wallet_balance(user=player)
    with pytest.raises(NotPermitted):
        wallet_adjust(user=player, amount=500, reason="a gift", staff_user=clerk)
    with pytest.raises(NotPermitted):
        ban_user(user=player, reason="rude", staff_user=clerk)
    assert wallet_balance(user=player) == before and not StaffAction.objects.exists()


def test_accounts_names_no_page_or_permission_of_games():
    pattern = re.compile(r"""["'f]games[._:]|admin:games""")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for top in ("accounts", "templates/accounts")
        for path in (ROOT / top).rglob("*")
        if path.suffix in (".py", ".html") and "migrations" not in path.parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
    assert pattern.search('has_perm(f"games.view_{model}")') and pattern.search('"games.close_table"')
