"""The table service: every change to a table in play goes through here.

Each command is: check and write the database where chips or seats change (records.py, through
the ledger), then change the table document with a pure function of table.py inside the store's
compare-and-set (``retry_update``), then tell the table's channel group the new version. The group
message is only a hint ("table N is at version V"); each consumer reads the state and renders
its own viewer's view, so a dropped message costs nothing but a moment.

The turn clock (one per process, ``ensure_clock``) calls ``handle_due`` for each deadline;
``claim_due`` gives a deadline to one process only, and ``DueDeadline.matches`` makes a stale
one (the player acted meanwhile) a no-op. With ``LIVE_TABLE_WORKER`` the serving processes run
no clock and settle no hand: a hand that ends there is due for settling at once, and the table
worker (``manage.py run_table_clock``) fires every deadline, so the database work of play
(settlements, hand starts) is done beside the sockets' processes, not in them.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from games.engine.fairness import MAX_CLIENT_SEED_CHARS, is_settable_client_seed, new_server_seed, seed_hash
from games.live import announced, events, presence, records
from games.live import table as t
from games.live.clock import TurnClock
from games.live.store import (
    Deadline,
    DueDeadline,
    StateStore,
    TableExists,
    TableMissing,
    Versioned,
    get_state_store,
    retry_update,
)

log = logging.getLogger(__name__)

Refused = t.Refused


LOBBY_GROUP = "lobby"


def in_db(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run database work from the event loop, on Channels' one database thread.

    Tried and measured (bench/load.py, 200 tables on PostgreSQL): a worker thread per call did
    worse than the one thread, the workers fighting over the interpreter lock.
    """
    return database_sync_to_async(fn)


def group_name(table_id: int) -> str:
    return f"table.{table_id}"


async def notify_lobby(table_id: int) -> None:
    """Seats changed at a table: the lobby's list of tables is out of date (a hint, like the rest)."""
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(LOBBY_GROUP, {"type": "lobby.changed", "table_id": table_id})


def _key(table_id: int) -> str:
    return str(table_id)


# This process is the table worker (``become_table_worker``, called by run_table_clock).
_worker = False


def become_table_worker() -> None:
    """This process fires the deadlines and settles the hands of every serving process."""
    global _worker
    _worker = True


def clock_runs_elsewhere() -> bool:
    """True in a serving process under ``LIVE_TABLE_WORKER``: the worker runs the clock."""
    return bool(settings.LIVE_TABLE_WORKER) and not _worker


def _settle_due_now(doc: t.Doc, *, now: float) -> None:
    """A hand ended where it is not settled: its settle deadline, the safety net of a settlement
    made at once (SHOWDOWN_PAUSE away), is due now, for the worker to take on its next tick."""
    timer = doc.get("timer")
    if doc.get("ended") and timer and timer["kind"] == "settle" and timer["at"] > now:
        doc["timer"] = {**timer, "at": now}


def _deadline(doc: t.Doc) -> Deadline | None:
    timer = doc.get("timer")
    return Deadline(at=float(timer["at"])) if timer else None


async def _broadcast(table_id: int, state: Versioned) -> None:
    layer = get_channel_layer()
    if layer is not None:
        # The state rides along, so the sockets need not each read it back from the store; it
        # stays on the server (the channel layer), and each socket renders only its viewer's view.
        announced.remember(table_id, state)
        await layer.group_send(group_name(table_id), announced.announcement(state))


async def update_table(
    table_id: int,
    change: Callable[[Versioned], t.Doc | None],
    store: StateStore | None = None,
    *,
    settle_ended: bool = True,
) -> Versioned:
    """Apply a pure change to the table's document atomically, then announce the new version.

    A change that ended the hand (a call, a fold, a timeout, a player leaving) is settled in the
    database right after, whatever caused it; under ``LIVE_TABLE_WORKER`` by the worker.
    """
    store = store or get_state_store()
    elsewhere = clock_runs_elsewhere()
    wrote = False  # whether the last decision of ``change`` wrote: an unchanged table is not announced

    def fn(current: Versioned) -> tuple[t.Doc, Deadline | None] | None:
        nonlocal wrote
        doc = change(current)
        wrote = doc is not None
        if doc is None:
            return None
        if doc is current.doc:
            doc = dict(doc)  # the state handed in is shared (the store's recent one): read-only
        now = time.time()
        doc["touched"] = now  # last activity: idle practice tables are closed by it
        if elsewhere:
            _settle_due_now(doc, now=now)
        return doc, _deadline(doc)

    try:
        state = await retry_update(store, _key(table_id), fn)
    except TableMissing:
        await load_table_state(table_id)
        state = await retry_update(store, _key(table_id), fn)
    if wrote:
        await _broadcast(table_id, state)
    if settle_ended and state.doc.get("ended") and not elsewhere:
        state = await settle(table_id=table_id)
    return state


# ---------------------------------------------------------------- loading and rebuilding


async def load_table_state(table_id: int) -> Versioned:
    """The table's state; rebuilt from the database when the store does not hold it.

    A rebuild means the store lost the table (first use, Redis restarted or flushed): a hand
    that was in play is cancelled, and as the ledger moves chips only when a hand is settled,
    every seat has exactly what it had when that hand began.
    """
    store = get_state_store()
    state = await store.get(_key(table_id))
    if state is not None:
        return state
    doc, numbered = await database_sync_to_async(_rebuild_doc)(table_id)
    try:
        state = await store.create(_key(table_id), doc, deadline=_deadline(doc))
    except TableExists:  # another process rebuilt it first, and cancels what it must
        state = await store.get(_key(table_id))
        assert state is not None
        return state
    # Only the rebuild that won cancels, and only the hands numbered before it read the table: a
    # hand numbered since is one the new table deals (its seed must stay secret), and a rebuild
    # that lost may have read the database before it was dealt.
    cancelled = await in_db(records.cancel_open_hands)(
        table_id=table_id, reason="the table was restarted", numbered_up_to=numbered
    )
    if cancelled:
        log.warning("table %s rebuilt; hands %s cancelled", table_id, cancelled)
    await _broadcast(table_id, state)
    return state


def _rebuild_doc(table_id: int) -> tuple[t.Doc, int]:
    """The table as the database has it, and the number of the last hand numbered then."""
    table = records.load_table(table_id)
    open_hands = records.open_hand_numbers(table_id=table_id, numbered_up_to=table.hands_started)
    doc = t.new_table_doc(table=records.table_settings(table), seats=records.seats_from_db(table))
    doc["epoch"] = secrets.token_hex(4)
    doc["touched"] = time.time()
    if open_hands:
        t.set_notice(
            doc,
            t.entry(
                gettext_noop(
                    "The hand in play was cancelled (the table was restarted); every seat has its chips back."
                )
            ),
        )
    t.schedule_start(doc, now=time.time())
    return doc, table.hands_started


# ---------------------------------------------------------------- seats


async def table_sit(*, user: User, table_id: int, position: object, buy_in: object) -> Versioned:
    position = _whole(position, "seat")
    buy_in = _whole(buy_in, "buy-in")
    await load_table_state(table_id)
    entry = await database_sync_to_async(records.sit_down)(
        user=user, table_id=table_id, position=position, buy_in=buy_in
    )
    now = time.time()
    state = await update_table(table_id, lambda s: t.add_seat(s.doc, position=position, entry=entry, now=now))
    await notify_lobby(table_id)
    return state


async def table_leave(*, user: User, table_id: int) -> Versioned:
    state = await load_table_state(table_id)
    pos = t.position_of(state.doc, user.pk)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    if state.doc["table"].get("practice"):
        from games.live.practice import practice_close

        await practice_close(table_id=table_id)  # a practice table ends when its player leaves
        return state
    if t.in_current_hand(state.doc, pos) or _in_ended_hand(state.doc, user.pk):
        # Folded now or at their turn; cashed out when the hand is settled.
        return await update_table(table_id, lambda s: t.mark_leaving(s.doc, user_id=user.pk, now=time.time()))
    await in_db(records.leave_seat)(
        user_id=user.pk, table_id=table_id, key=f"leave:{table_id}:{user.pk}:{secrets.token_hex(8)}"
    )
    state = await update_table(table_id, lambda s: t.remove_seat(s.doc, user_id=user.pk, now=time.time()))
    await notify_lobby(table_id)
    return state


def _in_ended_hand(doc: t.Doc, user_id: int) -> bool:
    return bool(doc.get("ended")) and user_id in doc["ended"]["players"]


async def table_add_chips(*, user: User, table_id: int, amount: object) -> Versioned:
    amount = _whole(amount, "amount")
    state = await load_table_state(table_id)
    pos = t.position_of(state.doc, user.pk)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    if t.in_current_hand(state.doc, pos) or _in_ended_hand(state.doc, user.pk):
        raise Refused(_("chips can be added between hands"))
    chips = await database_sync_to_async(records.add_chips)(user=user, table_id=table_id, amount=amount)
    return await update_table(
        table_id, lambda s: t.set_chips(s.doc, user_id=user.pk, chips=chips, now=time.time())
    )


async def table_sit_out(*, user: User, table_id: int, sitting_out: bool) -> Versioned:
    state = await update_table(
        table_id,
        lambda s: t.set_sitting_out(s.doc, user_id=user.pk, sitting_out=sitting_out, now=time.time()),
    )
    await database_sync_to_async(records.save_seat_flags)(
        user_id=user.pk, table_id=table_id, sitting_out=sitting_out
    )
    await in_db(events.record_sitting_out)(table_id=table_id, user_id=user.pk, sitting_out=sitting_out)
    return state


async def table_set_client_seed(*, user: User, table_id: int, client_seed: object) -> Versioned:
    seed = client_seed.strip() if isinstance(client_seed, str) else None
    if not is_settable_client_seed(seed):
        raise Refused(
            _("a client seed is 1 to %(most)s letters, digits, punctuation marks, symbols or spaces")
            % {"most": MAX_CLIENT_SEED_CHARS}
        )
    state = await update_table(
        table_id, lambda s: t.set_client_seed(s.doc, user_id=user.pk, client_seed=seed)
    )
    await database_sync_to_async(records.save_seat_flags)(
        user_id=user.pk, table_id=table_id, client_seed=seed
    )
    return state


def _whole(value: object, what: str) -> int:
    number = t.whole_number(value)
    if number is not None:
        return number
    # One sentence per field: the words around it change with it in Bulgarian.
    messages = {
        "seat": gettext_noop("the seat must be a whole number"),
        "buy-in": gettext_noop("the buy-in must be a whole number"),
        "amount": gettext_noop("the amount must be a whole number"),
    }
    raise Refused(_(messages[what]))


# ---------------------------------------------------------------- moves


async def table_act(
    *,
    user: User,
    table_id: int,
    verb: str,
    amount: object,
    client_version: object,
    action_id: object,
    epoch: object = None,
) -> Versioned:
    """A player's decision. Stale versions are refused; a repeated action id is applied once."""
    parsed = t.parse_amount(amount)
    # No read first: update_table reads the state anyway and rebuilds a table the store lost.

    def change(current: Versioned) -> t.Doc | None:
        if epoch is not None and epoch != current.doc.get("epoch"):
            raise Refused(_("the table was restarted since you acted; here it is as it is now"))
        if not t.check_command(
            current.doc, version=current.version, client_version=client_version, action_id=action_id
        ):
            return None  # already applied
        return t.apply_move(
            current.doc, user_id=user.pk, verb=verb, amount=parsed, now=time.time(), action_id=str(action_id)
        )

    return await update_table(table_id, change)


async def settle(*, table_id: int, current: Versioned | None = None) -> Versioned:
    """Write the ended hand to the database, then free the seats of those who left.

    ``current``: the state just read by the caller (the clock's), saving a read; the
    compare-and-set checks it like any other."""
    store = get_state_store()
    state = current or await store.get(_key(table_id))
    if state is None or not state.doc.get("ended"):
        return state or await load_table_state(table_id)
    ended = state.doc["ended"]
    await in_db(records.settle_hand)(table_id=table_id, ended=ended)
    leavers = [s["user_id"] for s in state.doc["seats"] if s and s["leaving"]]
    for user_id in leavers:
        await in_db(records.leave_seat)(
            user_id=user_id, table_id=table_id, key=f"leave:{table_id}:{user_id}:after:{ended['number']}"
        )
    number = ended["number"]

    def change(current: Versioned) -> t.Doc | None:
        if not current.doc.get("ended") or current.doc["ended"]["number"] != number:
            return None
        return t.mark_settled(current.doc, now=time.time(), left=leavers)

    state = await update_table(table_id, change, settle_ended=False)
    if leavers:
        await notify_lobby(table_id)
    return state


async def start_next_hand(*, table_id: int, current: Versioned | None = None) -> Versioned:
    state = current or await load_table_state(table_id)
    if state.doc["hand"] or state.doc["ended"] or len(t.ready_positions(state.doc)) < 2:
        return state
    seed = new_server_seed()
    # Who will be dealt in goes with the numbering, in one transaction: one trip to the database
    # thread per hand start instead of two, and the hand is on record before any card is dealt.
    lineup = records.Lineup.of_doc(state.doc)
    number, started = await in_db(records.begin_hand_record)(
        table_id=table_id, server_seed=seed, seed_hash=seed_hash(seed), lineup=lineup
    )
    return await deal_numbered_hand(
        table_id=table_id,
        number=number,
        started_at=started.isoformat(),
        seed=seed,
        lineup=lineup,
        epoch=state.doc.get("epoch"),
    )


async def deal_numbered_hand(
    *, table_id: int, number: int, started_at: str, seed: str, lineup: records.Lineup, epoch: str | None
) -> Versioned:
    """Deal the hand the database numbered, into the life of the table (``epoch``) it was numbered
    for. If the store lost the table meanwhile, the rebuild cancelled that hand and may show its
    seed: it is never dealt into the new table, whose next hand gets a number and seed of its own."""

    def change(current: Versioned) -> t.Doc | None:
        if current.doc["hand"] or current.doc["ended"] or current.doc.get("epoch") != epoch:
            return None
        return t.start_hand(
            current.doc, number=number, now=time.time(), started_at=started_at, server_seed=seed
        )

    state = await update_table(table_id, change)
    hand = state.doc.get("hand")
    if hand and hand["number"] == number:
        if records.Lineup.of_hand(hand) != lineup:
            # The table changed between our read and the deal (a player sat out, left or added
            # chips): record who really plays.
            await in_db(records.record_hand_start)(table_id=table_id, hand=hand)
    else:
        await in_db(records.abandon_hand_record)(table_id=table_id, number=number)
    return state


# ---------------------------------------------------------------- the clock


async def handle_due(due: DueDeadline) -> None:
    """A deadline fired: a turn ran out, the next hand is due, or a result waits to be settled."""
    table_id = int(due.table_id)
    store = get_state_store()
    current = await store.get(due.table_id)
    if not due.matches(current):
        return
    assert current is not None
    kind = (current.doc.get("timer") or {}).get("kind")
    if kind == "turn":

        def change(state: Versioned) -> t.Doc | None:
            if not due.matches(state):
                return None
            return t.apply_timeout(state.doc, now=time.time())

        after = await update_table(table_id, change)
        # Who ran out of time (and sat out by it), for staff following a dispute.
        await in_db(events.record_timeouts)(table_id=table_id, before=current.doc, after=after.doc)
    elif kind == "bot":

        def bot_moves(state: Versioned) -> t.Doc | None:
            if not due.matches(state):
                return None
            return t.apply_bot_move(state.doc, now=time.time())

        await update_table(table_id, bot_moves)
    elif kind == "svara":

        def deal_the_replay(state: Versioned) -> t.Doc | None:
            if not due.matches(state):
                return None
            return t.end_svara_pause(state.doc, now=time.time())

        await update_table(table_id, deal_the_replay)
    elif kind == "settle":
        await settle(table_id=table_id, current=current)
    elif kind == "start":
        await start_next_hand(table_id=table_id, current=current)


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
    now = time.time() if now is None else now
    fired = 0
    states: dict[str, Versioned] = {}
    held = await store.table_ids()
    for table_id in held:
        current = await store.get(table_id)
        if current is None:
            continue
        states[table_id] = current
        deadline = current.deadline
        if deadline is None or deadline.version is None or deadline.at > now - OVERDUE_GRACE:
            continue
        if _failing.get(table_id, (0, 0.0))[1] > now:
            continue  # failed lately: its turn to be retried has not come
        del states[table_id]  # changed now: its idle check waits for the next sweep
        try:
            await handle_due(DueDeadline(table_id=table_id, at=deadline.at, version=deadline.version))
        except Exception:
            _failed(table_id, now=now)
            continue
        _failing.pop(table_id, None)
        fired += 1
    await recover_lost_tables(held=set(held), now=now)
    from games.live.practice import close_idle_practice_tables

    # The same reads serve the idle check: one pass over the tables every few seconds, not two.
    await close_idle_practice_tables(now=now, states=states)
    return fired


async def recover_lost_tables(*, held: set[str], now: float) -> list[int]:
    """Rebuild the tables the database says are in play (a hand in play, or two players ready to
    be dealt in) that the store does not hold: after Redis was flushed or restarted their deadlines
    went with them, and they would wait for a client to open them. The rebuild is announced, so the
    pages that still watch them show the table as it is again."""
    recovered = []
    for table_id in await in_db(records.tables_in_play)():
        if str(table_id) in held or _failing.get(str(table_id), (0, 0.0))[1] > now:
            continue
        try:
            await load_table_state(table_id)
        except Exception:
            _failed(str(table_id), now=now)
            continue
        _failing.pop(str(table_id), None)
        recovered.append(table_id)
    if recovered:
        log.warning("tables %s were not in the store: rebuilt from the database", recovered)
    return recovered


async def _sweep_forever() -> None:
    while True:
        await asyncio.sleep(SWEEP_EVERY)
        try:
            await presence.vouch()  # this process's sockets are still open (the staff's count)
        except Exception:
            log.warning("presence: could not vouch for this process's sockets", exc_info=True)
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
    if not clock_runs_elsewhere():
        clock = TurnClock(get_state_store(), handle_due, poll_interval=0.25)
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
