"""Run the turn clock without serving any socket: timeouts, hand starts and settlements keep
happening for every table in the store even when no player is connected to this process."""

import asyncio
import contextlib

from django.core.management.base import BaseCommand

from games.live import service


class Command(BaseCommand):
    help = "Fire turn deadlines for all tables until interrupted (one of several processes is fine)."

    def handle(self, *args, **options) -> None:
        async def run() -> None:
            service.ensure_clock()
            await service.sweep_overdue()
            await asyncio.Event().wait()

        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run())
