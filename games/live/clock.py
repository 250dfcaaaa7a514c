"""The turn clock: one background task per process that fires due turn deadlines.

Every process runs one. Each loop it claims the deadlines that are due (``claim_due`` hands each
one to exactly one process) and calls ``on_due`` for each, concurrently within a batch, so one
slow table does not delay the others. It then sleeps until the next deadline, but never longer
than ``poll_interval``: another process may have set an earlier deadline meanwhile, and that
bound is the most a timeout can fire late.

A deadline is removed when it is claimed, before ``on_due`` runs; the callback should re-read the
table and act only if ``due.matches(current)`` (see ``store.DueDeadline``). Errors in the callback
or the store are logged and the loop goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from .store import DueDeadline, StateStore

log = logging.getLogger(__name__)

OnDue = Callable[[DueDeadline], Awaitable[None]]


class TurnClock:
    """``start()`` inside a running loop, ``await stop()`` to end it after the batch in hand."""

    def __init__(
        self,
        store: StateStore,
        on_due: OnDue,
        *,
        poll_interval: float = 0.5,
        batch: int = 100,
        now: Callable[[], float] = time.time,
    ) -> None:
        if poll_interval <= 0:
            raise ValueError("poll_interval must be > 0")
        self._store = store
        self._on_due = on_due
        self._poll_interval = poll_interval
        self._batch = batch
        self._now = now
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Event | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.running:
            return
        self._stopping = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="turn-clock")

    async def stop(self, *, timeout: float = 5.0) -> None:
        """Let the callbacks in hand finish (up to ``timeout``), then end the loop."""
        task, self._task = self._task, None
        if task is None:
            return
        assert self._stopping is not None
        self._stopping.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def tick(self) -> int:
        """Claim and fire one batch of due deadlines now; returns how many fired."""
        due = await self._store.claim_due(now=self._now(), limit=self._batch)
        if due:
            await asyncio.gather(*(self._fire(d) for d in due))
        return len(due)

    async def _fire(self, due: DueDeadline) -> None:
        try:
            await self._on_due(due)
        except Exception:
            # The deadline is already claimed: log it loudly, a retry here could apply a timeout twice.
            log.exception("turn clock: on_due failed for table %s (version %s)", due.table_id, due.version)

    async def _run(self) -> None:
        assert self._stopping is not None
        while not self._stopping.is_set():
            try:
                fired = await self.tick()
                if fired >= self._batch:
                    continue  # more may be due right now
                delay = await self._delay()
            except Exception:
                log.exception("turn clock: store error, retrying in %.2f s", self._poll_interval)
                delay = self._poll_interval
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=delay)

    async def _delay(self) -> float:
        next_at = await self._store.next_deadline()
        if next_at is None:
            return self._poll_interval
        return min(self._poll_interval, max(0.0, next_at - self._now()))
