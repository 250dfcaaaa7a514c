"""Run the turn clock without serving any socket: timeouts, hand starts and settlements keep
happening for every table in the store even when no player is connected to this process.

With ``LIVE_TABLE_WORKER`` set this is the table worker: the serving processes run no clock and
leave every hand's settlement to it (games/live/runtime.py). On Redis one worker runs at a time
(games/live/lease.py): a second one stands by and takes over when the first stops."""

import asyncio
import contextlib
import logging
import signal

import redis
from django.conf import settings
from django.core.management.base import BaseCommand

from games.live import process, runtime
from games.live.lease import WorkerLease

log = logging.getLogger(__name__)
STANDBY_POLL = 1.0  # seconds between a standby's tries for the lease


class Command(BaseCommand):
    help = "Fire turn deadlines for all tables until interrupted (on Redis, one worker at a time)."

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    def handle(self, *args, **options) -> None:
        # SIGINT (Ctrl-C) and SIGTERM (systemd's stop) both cancel the run, so its ``finally``
        # releases the lease and the standby takes over within a second instead of waiting the
        # lease out with every table's clock stopped.
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            asyncio.run(self.run())
        self.say("table clock stopped")

    metrics_served = False
    metrics_warned = False

    def serve_metrics(self) -> None:
        """The worker's own /metrics (deadline lateness, settlement time, errors) on the loopback,
        from when it first runs the clock: a standby on the same machine takes the port over when
        the worker it stood by for has exited (tried again at each renewal of the lease: the
        stopping worker releases its lease a moment before its process lets go of the port)."""
        if not settings.WORKER_METRICS_PORT or self.metrics_served:
            return
        from prometheus_client import start_http_server

        from svara_site.metrics import register_room_collector

        register_room_collector()
        try:
            start_http_server(settings.WORKER_METRICS_PORT, addr="127.0.0.1")
        except OSError:
            if not self.metrics_warned:
                log.warning("table worker: metrics port %s is taken", settings.WORKER_METRICS_PORT)
                self.metrics_warned = True
            return
        self.metrics_served = True
        self.say(f"metrics on http://127.0.0.1:{settings.WORKER_METRICS_PORT}/metrics")

    async def run(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        process.become_table_worker()
        role = "the table worker" if settings.LIVE_TABLE_WORKER else "one more clock"
        if not settings.REDIS_URL:
            self.serve_metrics()
            runtime.ensure_clock()
            self.say(f"table clock running ({role})")
            await runtime.sweep_overdue()
            await asyncio.Event().wait()
        lease = WorkerLease.from_url(settings.REDIS_URL, prefix=settings.LIVE_STATE_PREFIX)
        try:
            while True:
                await self.wait_for(lease)
                self.serve_metrics()
                runtime.ensure_clock()
                self.say(f"table clock running ({role}; lease {lease.holder})")
                await runtime.sweep_overdue()
                await self.hold(lease)
                await runtime.stop_clocks()
                self.say("table clock stopped: another worker holds the lease; standing by")
        finally:
            with contextlib.suppress(redis.RedisError):
                await lease.release()
            await lease.aclose()

    async def wait_for(self, lease: WorkerLease) -> None:
        told = None
        while True:
            try:
                if await lease.acquire():
                    return
                holder = await lease.held_by()
            except redis.RedisError as exc:
                holder = f"unknown (Redis: {exc})"
            if holder != told:
                self.say(f"table clock standing by: the table worker is {holder}")
                told = holder
            await asyncio.sleep(STANDBY_POLL)

    async def hold(self, lease: WorkerLease) -> None:
        """Renew the lease a few times per its length; return when another worker has it."""
        while True:
            await asyncio.sleep(lease.seconds / 3)
            self.serve_metrics()
            try:
                if await lease.renew() or await lease.acquire():
                    continue
            except redis.RedisError:
                # Redis away for a moment: the clock cannot work either; try again next time.
                log.exception("table worker: could not renew its lease")
                continue
            return
