"""Recompute the ledger from its entries and say where it disagrees with the stored balances."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Q, Sum

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction


@dataclass
class AuditReport:
    accounts: int = 0
    transactions: int = 0
    entries: int = 0
    house_balance: int = 0
    circulating: int = 0  # chips in wallets and seats
    granted: int = 0  # chips the house ever paid out
    removed: int = 0  # chips ever taken back into the house
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        lines = [
            f"accounts:      {self.accounts}",
            f"transactions:  {self.transactions}",
            f"entries:       {self.entries}",
            f"house balance: {self.house_balance}",
            f"in wallets and seats: {self.circulating}",
            f"granted {self.granted} - removed {self.removed} = {self.granted - self.removed}",
        ]
        if self.ok:
            lines.append("OK: every balance matches its entries, every transaction sums to zero.")
        else:
            lines.append(f"MISMATCH: {len(self.problems)} problem(s)")
            lines.extend(f"  - {problem}" for problem in self.problems)
        return lines


def audit_ledger() -> AuditReport:
    report = AuditReport()
    sums = dict(
        LedgerEntry.objects.values("account_id")
        .annotate(total=Sum("amount"))
        .values_list("account_id", "total")
    )
    for pk, key, kind, balance in LedgerAccount.objects.values_list(
        "pk", "key", "kind", "balance"
    ).iterator():
        report.accounts += 1
        recomputed = sums.get(pk) or 0
        if balance != recomputed:
            report.problems.append(f"account {key}: stored balance {balance}, entries sum to {recomputed}")
        if kind == LedgerAccount.Kind.HOUSE:
            report.house_balance += balance
        else:
            report.circulating += balance
            if balance < 0:
                report.problems.append(f"account {key}: negative balance {balance}")

    transactions = LedgerTransaction.objects.annotate(
        total=Sum("entries__amount"),
        count=Count("entries"),
        paid_in=Sum("entries__amount", filter=Q(entries__amount__gt=0)),
    ).values_list("pk", "idempotency_key", "amount", "total", "count", "paid_in")
    for pk, key, amount, total, count, paid_in in transactions.iterator():
        report.transactions += 1
        report.entries += count
        if count == 0:
            report.problems.append(f"transaction #{pk} ({key}): has no entries")
        elif total != 0:
            report.problems.append(f"transaction #{pk} ({key}): entries sum to {total}, not 0")
        if count and (paid_in or 0) != amount:
            report.problems.append(f"transaction #{pk} ({key}): amount {amount}, entries move {paid_in or 0}")

    house = LedgerEntry.objects.filter(account__kind=LedgerAccount.Kind.HOUSE).aggregate(
        out=Sum("amount", filter=Q(amount__lt=0)), back=Sum("amount", filter=Q(amount__gt=0))
    )
    report.granted = -(house["out"] or 0)
    report.removed = house["back"] or 0
    if report.circulating != -report.house_balance:
        report.problems.append(
            f"chips in wallets and seats ({report.circulating}) differ from minus the house balance "
            f"({-report.house_balance})"
        )
    if report.circulating != report.granted - report.removed:
        report.problems.append(
            f"chips in wallets and seats ({report.circulating}) differ from grants minus removals "
            f"({report.granted - report.removed})"
        )
    return report
