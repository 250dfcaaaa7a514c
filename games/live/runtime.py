"""The process runtime of the tables in play: the turn clock that fires their deadlines, the sweep
that stands in for a clock that missed one, and the rebuilding of tables the store lost.

The turn clock (one per process, ``ensure_clock``) calls ``handle_due`` for each deadline;
``claim_due`` gives a deadline to one process only, and ``DueDeadline.matches`` makes a stale
one (the player acted meanwhile) a no-op. With ``LIVE_TABLE_WORKER`` the serving processes run
no clock and settle no hand (games/live/process.py): the table worker (``manage.py
run_table_clock``) fires every deadline, so the database work of play (settlements, hand starts)
is done beside the sockets' processes, not in them.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from games.live import events, metrics, presence, process, records, service, socket_counts, watch
from games.live import transitions as t
from games.live.clock import TurnClock
from games.live.document import Doc, Refused, shape_problem
from games.live.practice import close_idle_practice_tables
from games.live.store import DueDeadline, UnreadableTable, Versioned, get_state_store
from games.models import Table

log = logging.getLogger(__name__)


async def handle_due(due: DueDeadline) -> None:
    """A deadline fired: a turn ran out, the next hand is due, or a result waits to be settled."""
    table_id = int(due.table_id)
    current = await service.read_table(table_id)  # an unreadable record: quarantined, None
    if not due.matches(current):
        return
    metrics.LATENESS.observe(max(0.0, process.now() - due.at))
    assert current is not None
    kind = (current.doc.get("timer") or {}).get("kind")
    if kind == "turn":

        def change(state: Versioned) -> Doc | None:
            if not due.matches(state):
                return None
            return t.apply_timeout(state.doc, now=process.now())

        after = await service.update_table(table_id, change)
        # Who ran out of time (and sat out by it), for staff following a dispute.
        await service.in_db(events.record_timeouts)(table_id=table_id, before=current.doc, after=after.doc)
    elif kind == "bot":

        def bot_moves(state: Versioned) -> Doc | None:
            if not due.matches(state):
                return None
            return t.apply_bot_move(state.doc, now=process.now())

        await service.update_table(table_id, bot_moves)
    elif kind == "svara":

        def deal_the_replay(state: Versioned) -> Doc | None:
            if not due.matches(state):
                return None
            return t.end_svara_pause(state.doc, now=process.now())

        await service.update_table(table_id, deal_the_replay)
    elif kind == "settle":
        await service.settle(table_id=table_id, current=current)
    elif kind == "start":
        await service.start_next_hand(table_id=table_id, current=current)


OVERDUE_GRACE = 5.0  # seconds past a deadline before the sweep fires it itself
SWEEP_EVERY = 5.0

_clocks: dict[int, tuple[asyncio.AbstractEventLoop, TurnClock | None, asyncio.Task]] = {}


# table id -> (failures in a row, not before): a table whose deadline keeps failing is retried
# later and later instead of every sweep, and never holds up the others.
_failing: dict[str, tuple[int, float]] = {}
RETRY_FIRST = 5.0
RETRY_MOST = 120.0


def _failed(table_id: str, *, now: float) -> None:
    failures = _failing.get(table_id, (0, 0.0))[0] + 1
    delay = min(RETRY_MOST, RETRY_FIRST * 2 ** (failures - 1))
    _failing[table_id] = (failures, now + delay)
    log.exception("table %s: its deadline failed (%s in a row); retried in %.0f s", table_id, failures, delay)


async def sweep_overdue(*, now: float | None = None) -> int:
    """Fire deadlines that are well past due but were never handled, and bring back tables the
    store lost; each table on its own, so one that fails is logged and retried with backoff.

    ``claim_due`` removes a deadline before its handler runs, so a process that dies in between
    loses it; the table's state still carries it. Handling it again is safe: the handlers check
    that the state still carries that deadline, inside the compare-and-set.
    """
    store = get_state_store()
    now = process.now() if now is None else now
    fired = 0
    states: dict[str, Versioned] = {}
    report = watch.SweepReport(at=now)
    held = await store.table_ids()
    held_now = set(held)
    for table_id in held:
        try:
            # An unreadable record is quarantined here and the table left out of ``held_now``: it
            # is rebuilt below like a lost one, if the database says it is in play.
            current = await service.read_table(int(table_id))
        except Exception:
            _failed(table_id, now=now)
            continue
        if current is None:
            held_now.discard(table_id)
            continue
        states[table_id] = current
        deadline = current.deadline
        if deadline is None or deadline.version is None or deadline.at > now - OVERDUE_GRACE:
            continue
        late = round(now - deadline.at, 1)
        if _failing.get(table_id, (0, 0.0))[1] > now:
            if late >= watch.STUCK_AFTER:
                report.stuck[table_id] = late
            continue  # failed lately: its turn to be retried has not come
        del states[table_id]  # changed now: its idle check waits for the next sweep
        try:
            await handle_due(DueDeadline(table_id=table_id, at=deadline.at, version=deadline.version))
        except Exception:
            _failed(table_id, now=now)
            if late >= watch.STUCK_AFTER:
                report.stuck[table_id] = late
            continue
        _failing.pop(table_id, None)
        fired += 1
    try:
        await watch.publish_sweep(report)  # what /healthz and /metrics show of the tables
    except Exception:
        log.warning("could not publish the sweep's report", exc_info=True)
    await recover_lost_tables(held=held_now, now=now)
    # The same reads serve the idle check: one pass over the tables every few seconds, not two.
    await close_idle_practice_tables(now=now, states=states)
    return fired


async def recover_lost_tables(*, held: set[str], now: float) -> list[int]:
    """Rebuild the tables the database says are in play (a hand in play, or two players ready to
    be dealt in) that the store does not hold: after Redis was flushed or restarted their deadlines
    went with them, and they would wait for a client to open them. The rebuild is announced, so the
    pages that still watch them show the table as it is again."""
    recovered = []
    for table_id in await service.in_db(records.tables_in_play)():
        if str(table_id) in held or _failing.get(str(table_id), (0, 0.0))[1] > now:
            continue
        try:
            await service.load_table_state(table_id)
        except Exception:
            _failed(str(table_id), now=now)
            continue
        _failing.pop(str(table_id), None)
        recovered.append(table_id)
    if recovered:
        log.warning("tables %s were not in the store: rebuilt from the database", recovered)
    return recovered


@dataclass(frozen=True)
class Trouble:
    """A table an operator should look at (``manage.py live_tables``): ``what`` is "overdue" (its
    deadline passed OVERDUE_GRACE ago and nothing fired it), "unreadable" (its record is not a
    table's document; the next read quarantines it) or "quarantined" (a record set aside)."""

    table_id: str
    what: str
    detail: str


async def troubled_tables(*, now: float | None = None) -> list[Trouble]:
    """Every overdue, unreadable or quarantined table; reading only, nothing is changed."""
    store = get_state_store()
    now = process.now() if now is None else now
    found = []
    for table_id in await store.table_ids():
        try:
            current = await store.get(table_id)
            problem = shape_problem(current.doc) if current is not None else None
        except UnreadableTable as exc:
            current, problem = None, exc.reason
        if problem is not None:
            found.append(Trouble(table_id, "unreadable", problem))
            continue
        deadline = current.deadline if current is not None else None
        if current is not None and deadline is not None and deadline.at <= now - OVERDUE_GRACE:
            kind = (current.doc.get("timer") or {}).get("kind", "?")
            late = f"its {kind} deadline passed {now - deadline.at:.0f} s ago"
            found.append(Trouble(table_id, "overdue", late))
    for kept in await store.quarantined():
        kept_text = f"{kept.reason} ({len(kept.raw)} characters kept)"
        found.append(Trouble(kept.table_id, "quarantined", kept_text))
    return found


async def rebuild_table(*, table_id: int, reason: str) -> Versioned:
    """Set the table's record aside (quarantined, kept for a look) and rebuild the table from the
    database, as a table the store lost: the hand in play, if any, is cancelled and every seat has
    what it had when that hand began. For a table that is stuck; the operator's command.
    ``Refused`` (nothing changed) for a table that does not exist or is closed."""
    table = await service.in_db(records.load_table)(table_id)
    if table.status != Table.Status.OPEN:
        raise Refused(f"table {table_id} is closed: there is nothing in play to rebuild")
    await get_state_store().quarantine(str(table_id), reason=reason, at=process.now())
    _failing.pop(str(table_id), None)
    return await service.load_table_state(table_id)


async def _sweep_forever() -> None:
    while True:
        await asyncio.sleep(SWEEP_EVERY)
        try:
            await presence.vouch()  # this process's sockets are still open (the staff's count)
        except Exception:
            log.warning("presence: could not vouch for this process's sockets", exc_info=True)
        try:
            await socket_counts.vouch()  # and still hold their places (the limit per player)
        except Exception:
            log.warning("socket counts: could not vouch for this process's sockets", exc_info=True)
        try:
            await sweep_overdue()
        except Exception:  # the sweep must outlive a bad table or a store hiccup
            log.exception("sweep of overdue deadlines failed")


def ensure_clock() -> TurnClock | None:
    """Start this process's turn clock (and its sweep) on the running loop, once.

    Consumers call it on connect; ``manage.py run_table_clock`` runs it without any socket.
    Under ``LIVE_TABLE_WORKER`` a serving process runs the sweep alone (None): should the worker
    be down, the sweep still fires each deadline, OVERDUE_GRACE late.
    """
    loop = asyncio.get_running_loop()
    entry = _clocks.get(id(loop))
    if entry is not None and entry[0] is loop and not entry[2].done():
        clock = entry[1]
        if clock is None or clock.running:
            return clock
        entry[2].cancel()
    clock = None
    if not process.clock_runs_elsewhere():
        clock = TurnClock(get_state_store(), handle_due, poll_interval=0.25, now=process.now)
        clock.start()
    sweeper = loop.create_task(_sweep_forever(), name="deadline-sweep")
    _clocks[id(loop)] = (loop, clock, sweeper)
    return clock


async def stop_clocks() -> None:
    """Stop the clock of the running loop, and forget clocks whose loops have closed."""
    loop = asyncio.get_running_loop()
    for key, (owner, clock, sweeper) in list(_clocks.items()):
        if owner is loop:
            sweeper.cancel()
            if clock is not None:
                await clock.stop()
        if owner is loop or owner.is_closed():
            del _clocks[key]
