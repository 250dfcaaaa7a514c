"""Many threads, each with its own PostgreSQL connection, hitting the same accounts at once.

Real row locks and real races: these run only on PostgreSQL (``postgres_db``), with committed
transactions (``transaction=True``) so each thread sees the others' work.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection

from accounts.models import LedgerAccount, LedgerTransaction
from accounts.services import (
    InsufficientFunds,
    LedgerError,
    audit_ledger,
    grant_signup_bonus,
    hand_settle,
    seat_balance,
    seat_buy_in,
    seat_cash_out,
    wallet_balance,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 16


def run_together(calls: list[Callable[[], object]]) -> list[object]:
    """Start every call at the same moment, one thread and connection each; return results or exceptions."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def worker(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except Exception as exc:  # collected and asserted on by the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung (deadlock?)"
    return results


def outcome(results: list[object]) -> Counter:
    return Counter("ok" if isinstance(r, LedgerTransaction) else type(r).__name__ for r in results)


def assert_ledger_sound() -> None:
    report = audit_ledger()
    assert report.ok, report.problems
    assert not LedgerAccount.objects.exclude(kind="house").filter(balance__lt=0).exists()


def test_concurrent_daily_bonus_claims_grant_once(postgres_db, player):
    results = run_together([lambda: wallet_claim_daily_bonus(user=player)] * THREADS)
    assert outcome(results) == Counter({"ok": 1, "GrantNotAvailable": THREADS - 1})
    assert wallet_balance(user=player) == 1500
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 1
    assert_ledger_sound()


def test_concurrent_signup_grants_grant_once(postgres_db, make_user):
    user = make_user()
    results = run_together([lambda: grant_signup_bonus(user=user)] * THREADS)
    assert outcome(results) == Counter({"ok": THREADS})
    assert len({r.pk for r in results}) == 1
    assert wallet_balance(user=user) == 1000
    assert_ledger_sound()


def test_concurrent_refills_grant_once(postgres_db, make_user):
    user = make_user()  # no chips: eligible for a refill to 1,000
    results = run_together([lambda: wallet_claim_refill(user=user)] * THREADS)
    assert outcome(results) == Counter({"ok": 1, "GrantNotAvailable": THREADS - 1})
    assert wallet_balance(user=user) == 1000
    assert_ledger_sound()


def test_concurrent_buy_ins_never_overdraw_the_wallet(postgres_db, player):
    # 16 buy-ins of 150 across four tables from a 1,000-chip wallet: exactly 6 fit.
    calls = [
        (lambda i=i: seat_buy_in(user=player, table_id=1 + i % 4, amount=150, idempotency_key=f"buy-{i}"))
        for i in range(THREADS)
    ]
    results = run_together(calls)
    assert outcome(results) == Counter({"ok": 6, "InsufficientFunds": THREADS - 6})
    assert all(isinstance(r, (LedgerTransaction, InsufficientFunds)) for r in results)
    assert wallet_balance(user=player) == 100
    assert sum(seat_balance(user=player, table_id=t) for t in range(1, 5)) == 900
    assert_ledger_sound()


def test_the_same_buy_in_sent_by_many_threads_moves_chips_once(postgres_db, player):
    results = run_together(
        [lambda: seat_buy_in(user=player, table_id=1, amount=300, idempotency_key="one-click")] * THREADS
    )
    assert outcome(results) == Counter({"ok": THREADS})
    assert len({r.pk for r in results}) == 1
    assert wallet_balance(user=player) == 700 and seat_balance(user=player, table_id=1) == 300
    assert_ledger_sound()


def test_bonus_claims_and_buy_ins_at_once(postgres_db, player):
    calls: list[Callable[[], object]] = []
    for i in range(THREADS):
        if i % 2:
            calls.append(lambda: wallet_claim_daily_bonus(user=player))
        else:
            calls.append(
                lambda i=i: seat_buy_in(user=player, table_id=9, amount=200, idempotency_key=f"b{i}")
            )
    results = run_together(calls)
    counts = outcome(results)
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 1
    assert counts["GrantNotAvailable"] == THREADS // 2 - 1
    buy_ins = LedgerTransaction.objects.filter(kind="buy_in").count()
    # 1,000 + 500 available, 200 each: 7 or fewer depending on when the bonus landed.
    assert 5 <= buy_ins <= 7
    assert wallet_balance(user=player) == 1500 - 200 * buy_ins
    assert_ledger_sound()


def test_crossing_settlements_and_cash_outs_do_not_deadlock(postgres_db, make_user):
    players = [make_user() for _ in range(4)]
    for p in players:
        grant_signup_bonus(user=p)
        seat_buy_in(user=p, table_id=5, amount=800, idempotency_key=f"sit-{p.pk}")
    ids = [p.pk for p in players]
    calls: list[Callable[[], object]] = []
    for i in range(THREADS):
        # Pairs in both orders, so a naive lock order would deadlock.
        a, b = ids[i % 4], ids[(i + 1 + i // 4) % 4]
        if a == b:
            b = ids[(i + 2) % 4]
        if i % 5 == 4:
            calls.append(
                lambda p=players[i % 4], i=i: seat_cash_out(
                    user=p, table_id=5, amount=50, idempotency_key=f"co{i}"
                )
            )
        else:
            calls.append(
                lambda a=a, b=b, i=i: hand_settle(table_id=5, deltas={a: 70, b: -70}, idempotency_key=f"h{i}")
            )
    results = run_together(calls)
    assert all(isinstance(r, (LedgerTransaction, LedgerError)) for r in results), results
    assert not any(isinstance(r, InsufficientFunds) for r in results)  # 800 each is plenty
    total_seats = sum(seat_balance(user=p, table_id=5) for p in players)
    cashed = 50 * sum(1 for i in range(THREADS) if i % 5 == 4)
    assert total_seats == 4 * 800 - cashed
    assert_ledger_sound()
