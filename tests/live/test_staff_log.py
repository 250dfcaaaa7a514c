"""Every staff action writes one line of the staff log, in the service that does it whatever page
asked: who, what, on whom (a player, a table), why; and the same form sent again writes none."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from accounts.ledger.errors import LedgerError
from accounts.models import LedgerTransaction, StaffAction
from accounts.services import ban_user, lift_ban, wallet_adjust, wallet_balance
from accounts.staff_log.errors import StaffRefusal
from games.live import staff
from tests.live.test_staff_rights import three_seated  # noqa: F401 (the fixture)
from tests.staff_roles import superuser

pytestmark = pytest.mark.django_db(transaction=True)


def act(kind: str, *, boss, table, players, token: str):
    """Do ``kind`` through its service; returns what the log should say (user, table, reason)."""
    ann, bob, _ = players
    if kind == "ban":
        ban_user(user=ann, reason="bot play", staff_user=boss, token=token)
        return ann, None, "bot play"
    if kind == "lift_ban":
        if not ann.bans.exists():
            ban_user(user=ann, reason="bot play", staff_user=boss)
        lift_ban(user=ann, reason="appeal granted", staff_user=boss, token=token)
        return ann, None, "appeal granted"
    if kind == "wallet_adjust":
        wallet_adjust(user=bob, amount=250, reason="prize", staff_user=boss, idempotency_key=token)
        return bob, None, "prize"
    if kind == "table_close":
        async_to_sync(staff.table_close)(table_id=table.pk, staff_user=boss, reason="broken", token=token)
        return None, table.pk, "broken"
    if kind == "seat_remove":
        async_to_sync(staff.seat_remove)(
            table_id=table.pk, user=bob, staff_user=boss, reason="abuse", token=token
        )
        return bob, table.pk, "abuse"
    assert kind == "table_edit"
    async_to_sync(staff.table_change_settings)(table_id=table.pk, staff_user=boss, changes={"name": "elm"})
    return None, table.pk, ""


@pytest.mark.parametrize(
    "kind", ["ban", "lift_ban", "wallet_adjust", "table_close", "seat_remove", "table_edit"]
)
def test_each_action_writes_one_line_who_what_on_whom_and_why(three_seated, kind):  # noqa: F811
    table, players = three_seated
    boss = superuser()
    before = set(StaffAction.objects.values_list("pk", flat=True))
    user, table_id, reason = act(kind, boss=boss, table=table, players=players, token=f"form-{kind}")
    new = StaffAction.objects.exclude(pk__in=before).filter(kind=kind)
    assert new.count() == 1
    line = new.get()
    assert (line.staff_user, line.user, line.table_id, line.reason) == (boss, user, table_id, reason)
    if kind == "wallet_adjust":
        assert line.ledger_transaction == LedgerTransaction.objects.get(kind="adjust", created_by=boss)

    if kind == "table_edit":
        return  # a settings page carries no token: Django's own form, saved once per post
    wallet = wallet_balance(user=players[1])
    try:  # sent again: refused as already sent, or (a wallet adjustment) the first one's answer
        act(kind, boss=boss, table=table, players=players, token=f"form-{kind}")
    except (LedgerError, StaffRefusal, staff.Refused) as exc:
        assert "already sent" in str(exc)
    assert StaffAction.objects.exclude(pk__in=before).filter(kind=kind).count() == 1
    assert wallet_balance(user=players[1]) == wallet
