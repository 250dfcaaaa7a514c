"""The operator's view of the tables in play that need a look: overdue, unreadable or quarantined
(games/live/runtime.py, ``troubled_tables``); and the two things to do about one: rebuild a stuck
table from the database, forget a quarantined record once looked at (``/healthz`` says "degraded"
while any is kept)."""

from __future__ import annotations

import time

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.live import runtime
from games.live.document import Refused
from games.live.store import get_state_store


class Command(BaseCommand):
    help = "List overdue, unreadable and quarantined tables; rebuild one; forget a quarantined record."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--rebuild",
            type=int,
            metavar="TABLE_ID",
            help="quarantine the table's record and rebuild the table from the database "
            "(its hand in play, if any, is cancelled; every seat has what it had before it)",
        )
        parser.add_argument(
            "--forget", type=int, metavar="TABLE_ID", help="drop the table's quarantined record"
        )
        parser.add_argument("--now", type=float, help="the time to judge overdue by (unix seconds; tests)")

    def handle(self, *args: object, **options) -> None:
        async_to_sync(self.run)(rebuild=options["rebuild"], forget=options["forget"], now=options["now"])

    async def run(self, *, rebuild: int | None, forget: int | None, now: float | None) -> None:
        try:
            if rebuild is not None:
                try:
                    state = await runtime.rebuild_table(table_id=rebuild, reason="rebuilt by an operator")
                except Refused as exc:
                    raise CommandError(f"table {rebuild}: {exc}") from None
                self.stdout.write(f"table {rebuild} rebuilt from the database (version {state.version})")
            if forget is not None:
                gone = await get_state_store().forget_quarantined(str(forget))
                said = "quarantined record dropped" if gone else "no quarantined record"
                self.stdout.write(f"table {forget}: {said}")
            if rebuild is None and forget is None:
                if not settings.REDIS_URL:
                    self.stdout.write(
                        "(no REDIS_URL: this process's own tables only; the server's are in its memory)"
                    )
                troubles = await runtime.troubled_tables(now=time.time() if now is None else now)
                for trouble in troubles:
                    self.stdout.write(f"table {trouble.table_id}: {trouble.what}: {trouble.detail}")
                total = f"{len(troubles)} table(s) need a look" if troubles else "every table is fine"
                self.stdout.write(total)
        finally:
            await get_state_store().aclose()
