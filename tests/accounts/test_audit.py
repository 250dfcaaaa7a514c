"""``manage.py audit_chips``: clean ledger exits 0; any tampering is named and exits 1."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import ManagementUtility, call_command
from django.core.management.base import CommandError

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction
from accounts.services import grant_signup_bonus, hand_settle, seat_buy_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def ledger(make_user):
    """Two players, a buy-in each and one settled hand."""
    a, b = make_user(), make_user()
    for user in (a, b):
        grant_signup_bonus(user=user)
        seat_buy_in(user=user, table_id=1, amount=400, idempotency_key=f"in-{user.pk}")
    hand_settle(table_id=1, deltas={a.pk: 100, b.pk: -100}, idempotency_key="hand-1")
    return a, b


def audit() -> tuple[int, str, str]:
    """Run the command as manage.py would: the exit status, stdout and stderr."""
    out, err = StringIO(), StringIO()
    try:
        call_command("audit_chips", stdout=out, stderr=err)
    except CommandError as exc:
        return exc.returncode, out.getvalue(), str(exc)
    return 0, out.getvalue(), err.getvalue()


def test_a_clean_ledger_passes(ledger):
    status, out, _ = audit()
    assert status == 0
    assert "OK: every balance matches its entries" in out
    assert "house balance: -2000" in out
    assert "in wallets and seats: 2000" in out
    assert "granted 2000 - removed 0 = 2000" in out


def test_an_empty_ledger_passes(db):
    assert audit()[0] == 0


def test_a_tampered_balance_is_named(ledger):
    a, _b = ledger
    LedgerAccount.objects.filter(key=f"wallet:{a.pk}").update(balance=5000)
    status, out, message = audit()
    assert status == 1
    assert f"account wallet:{a.pk}: stored balance 5000, entries sum to 600" in out
    assert "chips in wallets and seats (6400) differ from minus the house balance (2000)" in out
    assert "chip audit failed" in message


def test_a_tampered_house_is_named(ledger):
    LedgerAccount.objects.filter(key="house").update(balance=0)
    status, out, _ = audit()
    assert status == 1
    assert "account house: stored balance 0, entries sum to -2000" in out


def test_an_unbalanced_transaction_is_named(ledger):
    txn = LedgerTransaction.objects.get(idempotency_key="hand-1")
    entry = txn.entries.filter(amount__gt=0).get()
    LedgerEntry.objects.filter(pk=entry.pk).update(amount=150)
    status, out, _ = audit()
    assert status == 1
    assert f"transaction #{txn.pk} (hand-1): entries sum to 50, not 0" in out
    assert f"transaction #{txn.pk} (hand-1): amount 100, entries move 150" in out


def test_a_transaction_without_entries_is_named(ledger):
    txn = LedgerTransaction.objects.create(kind="adjust", idempotency_key="orphan", fingerprint="x", amount=0)
    status, out, _ = audit()
    assert status == 1
    assert f"transaction #{txn.pk} (orphan): has no entries" in out


def test_manage_py_exits_non_zero_on_a_mismatch(ledger, capsys):
    LedgerAccount.objects.filter(key="house").update(balance=1)
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", "audit_chips"]).execute()
    assert exited.value.code == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_manage_py_exits_zero_when_clean(ledger, capsys):
    ManagementUtility(["manage.py", "audit_chips"]).execute()  # no SystemExit: status 0
    assert "OK" in capsys.readouterr().out
