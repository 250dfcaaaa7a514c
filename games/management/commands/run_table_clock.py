"""Run the turn clock without serving any socket: timeouts, hand starts and settlements keep
happening for every table in the store even when no player is connected to this process.

With ``LIVE_TABLE_WORKER`` set this is the table worker: the serving processes run no clock and
leave every hand's settlement to it (games/live/service.py)."""

import asyncio
import contextlib

from django.conf import settings
from django.core.management.base import BaseCommand

from games.live import service


class Command(BaseCommand):
    help = "Fire turn deadlines for all tables until interrupted (one of several processes is fine)."

    def handle(self, *args, **options) -> None:
        async def run() -> None:
            service.become_table_worker()
            service.ensure_clock()
            role = "the table worker" if settings.LIVE_TABLE_WORKER else "one more clock"
            self.stdout.write(f"table clock running ({role})")
            self.stdout.flush()
            await service.sweep_overdue()
            await asyncio.Event().wait()

        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run())
