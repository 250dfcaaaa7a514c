"""``python manage.py audit_chips``: recompute the ledger; exit 1 on any mismatch."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from accounts.ledger.audit import audit_ledger


class Command(BaseCommand):
    help = (
        "Recompute every balance from the ledger entries, check that every transaction sums to zero "
        "and that the chips in wallets and seats equal grants minus removals. Exits 1 on a mismatch."
    )

    def handle(self, *args, **options) -> None:
        report = audit_ledger()
        for line in report.lines():
            self.stdout.write(line)
        if not report.ok:
            raise CommandError(f"chip audit failed: {len(report.problems)} problem(s)", returncode=1)
