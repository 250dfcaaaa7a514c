"""The table service: every command that changes a table in play goes through here.

Each command is: check and write the database where chips or seats change (records.py, through
the ledger), then change the table document with a pure function of transitions.py inside the store's
compare-and-set (``retry_update``), then tell the table's channel group the new version. The group
message is only a hint ("table N is at version V"); each consumer reads the state and renders
its own viewer's view, so a dropped message costs nothing but a moment.

What fires the deadlines these commands set (the turn clock, the sweep) is the runtime's
(runtime.py); the time and which process settles a hand are the process's (process.py).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from games.engine.fairness import MAX_CLIENT_SEED_CHARS, is_settable_client_seed
from games.kinds import Leaving
from games.live import announced, events, metrics, process, records
from games.live import transitions as t
from games.live.document import (
    Doc,
    Refused,
    in_current_hand,
    new_table_doc,
    position_of,
    shape_problem,
    table_kind,
)
from games.live.entries import add_line, entry, set_notice
from games.live.store import (
    Deadline,
    StateStore,
    TableExists,
    TableMissing,
    UnreadableTable,
    Versioned,
    get_state_store,
    retry_update,
)

log = logging.getLogger(__name__)


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


def _settle_due_now(doc: Doc, *, now: float) -> None:
    """A hand ended where it is not settled: its settle deadline, the safety net of a settlement
    made at once (SHOWDOWN_PAUSE away), is due now, for the worker to take on its next tick."""
    timer = doc.get("timer")
    if doc.get("ended") and timer and timer["kind"] == "settle" and timer["at"] > now:
        doc["timer"] = {**timer, "at": now}


def _deadline(doc: Doc) -> Deadline | None:
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
    change: Callable[[Versioned], Doc | None],
    store: StateStore | None = None,
    *,
    settle_ended: bool = True,
) -> Versioned:
    """Apply a pure change to the table's document atomically, then announce the new version.

    A change that ended the hand (a call, a fold, a timeout, a player leaving) is settled in the
    database right after, whatever caused it; under ``LIVE_TABLE_WORKER`` by the worker.
    """
    store = store or get_state_store()
    elsewhere = process.clock_runs_elsewhere()
    wrote = False  # whether the last decision of ``change`` wrote: an unchanged table is not announced

    def fn(current: Versioned) -> tuple[Doc, Deadline | None] | None:
        nonlocal wrote
        _check_shape(table_id, current)
        doc = change(current)
        wrote = doc is not None
        if doc is None:
            return None
        if doc is current.doc:
            doc = dict(doc)  # the state handed in is shared (the store's recent one): read-only
        now = process.now()
        doc["touched"] = now  # last activity: idle tables are closed by it, at a kind that closes them
        if elsewhere:
            _settle_due_now(doc, now=now)
        return doc, _deadline(doc)

    try:
        state = await retry_update(store, _key(table_id), fn)
    except (TableMissing, UnreadableTable) as exc:
        if isinstance(exc, UnreadableTable):
            await set_aside(exc)
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
    state = await read_table(table_id)
    if state is not None:
        return state
    store = get_state_store()
    doc, numbered = await database_sync_to_async(_rebuild_doc)(table_id)
    try:
        state = await store.create(_key(table_id), doc, deadline=_deadline(doc))
    except TableExists:  # another process rebuilt it first, and cancels what it must
        state = await store.get(_key(table_id))
        assert state is not None
        return state
    # Only the rebuild that won cancels, and only the hands numbered before it read the table: a
    # hand numbered since is one the new table deals, and a rebuild that lost may have read the
    # database before it was dealt.
    cancelled = await in_db(records.cancel_open_hands)(
        table_id=table_id, reason="the table was restarted", numbered_up_to=numbered
    )
    if cancelled:
        log.warning("table %s rebuilt; hands %s cancelled", table_id, cancelled)
    await _broadcast(table_id, state)
    return state


def _check_shape(table_id: int, state: Versioned) -> None:
    problem = shape_problem(state.doc)
    if problem is not None:
        raise UnreadableTable(_key(table_id), problem)


async def read_table(table_id: int) -> Versioned | None:
    """The table's state as the store holds it, or None when it holds none. A record that is not
    a table's document (not JSON, or the wrong shape) is quarantined (``set_aside``) and counts as
    none: the caller rebuilds the table from the database as it does a table the store lost."""
    try:
        state = await get_state_store().get(_key(table_id))
        if state is not None:
            _check_shape(table_id, state)
        return state
    except UnreadableTable as exc:
        await set_aside(exc)
        return None


async def set_aside(exc: UnreadableTable) -> None:
    """Quarantine an unreadable record under its own key (the operator lists it with ``manage.py
    live_tables``, ``/healthz`` counts it) and forget the table: its next use rebuilds it."""
    log.error(
        "table %s: its record in the store is unreadable (%s); quarantined, rebuilt from the database",
        exc.table_id,
        exc.reason,
    )
    await get_state_store().quarantine(exc.table_id, reason=exc.reason, at=process.now())


def _rebuild_doc(table_id: int) -> tuple[Doc, int]:
    """The table as the database has it, and the number of the last hand numbered then."""
    table = records.load_table(table_id)
    open_hands = records.open_hand_numbers(table_id=table_id, numbered_up_to=table.hands_started)
    doc = new_table_doc(table=records.table_settings(table), seats=records.seats_from_db(table))
    doc["epoch"] = secrets.token_hex(4)
    doc["touched"] = process.now()
    if open_hands:
        set_notice(
            doc,
            entry(
                gettext_noop(
                    "The hand in play was cancelled (the table was restarted); every seat has its chips back."
                )
            ),
        )
    t.schedule_start(doc, now=process.now())
    return doc, table.hands_started


# ---------------------------------------------------------------- seats


async def table_sit(*, user: User, table_id: int, position: object, buy_in: object) -> Versioned:
    position = _whole(position, "seat")
    buy_in = _whole(buy_in, "buy-in")
    await load_table_state(table_id)
    entry = await database_sync_to_async(records.sit_down)(
        user=user, table_id=table_id, position=position, buy_in=buy_in
    )
    now = process.now()
    state = await update_table(table_id, lambda s: t.add_seat(s.doc, position=position, entry=entry, now=now))
    await notify_lobby(table_id)
    return state


async def table_leave(*, user: User, table_id: int) -> Versioned:
    state = await load_table_state(table_id)
    pos = position_of(state.doc, user.pk)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    if table_kind(state.doc).leaving is Leaving.CLOSES_TABLE:
        await close_own_table(table_id=table_id)  # the table was the player's alone: it ends
        return state
    if in_current_hand(state.doc, pos) or _in_ended_hand(state.doc, user.pk):
        # Folded now or at their turn; cashed out when the hand is settled.
        return await update_table(
            table_id, lambda s: t.mark_leaving(s.doc, user_id=user.pk, now=process.now())
        )
    await in_db(records.leave_seat)(
        user_id=user.pk, table_id=table_id, key=f"leave:{table_id}:{user.pk}:{secrets.token_hex(8)}"
    )
    state = await update_table(table_id, lambda s: t.remove_seat(s.doc, user_id=user.pk, now=process.now()))
    await notify_lobby(table_id)
    return state


async def close_own_table(*, table_id: int) -> None:
    """Close a table that was its player's alone (a practice table): nothing to cash out, the
    store forgets it."""
    await database_sync_to_async(records.close_own_table)(table_id=table_id)
    await get_state_store().delete(_key(table_id))


def _in_ended_hand(doc: Doc, user_id: int) -> bool:
    return bool(doc.get("ended")) and user_id in doc["ended"]["players"]


async def table_add_chips(*, user: User, table_id: int, amount: object) -> Versioned:
    amount = _whole(amount, "amount")
    state = await load_table_state(table_id)
    pos = position_of(state.doc, user.pk)
    if pos is None:
        raise Refused(_("you are not seated at this table"))
    if in_current_hand(state.doc, pos) or _in_ended_hand(state.doc, user.pk):
        raise Refused(_("chips can be added between hands"))
    # The check above is on the table as it was: a hand may be dealt before the ledger's move
    # lands on the table, so the table takes the amount inside its compare-and-set (t.add_chips).
    await database_sync_to_async(records.add_chips)(user=user, table_id=table_id, amount=amount)
    return await update_table(
        table_id, lambda s: t.add_chips(s.doc, user_id=user.pk, amount=amount, now=process.now())
    )


async def table_sit_out(*, user: User, table_id: int, sitting_out: bool) -> Versioned:
    state = await update_table(
        table_id,
        lambda s: t.set_sitting_out(s.doc, user_id=user.pk, sitting_out=sitting_out, now=process.now()),
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

    def change(current: Versioned) -> Doc | None:
        if epoch is not None and epoch != current.doc.get("epoch"):
            raise Refused(_("the table was restarted since you acted; here it is as it is now"))
        if not t.check_command(
            current.doc, version=current.version, client_version=client_version, action_id=action_id
        ):
            return None  # already applied
        return t.apply_move(
            current.doc,
            user_id=user.pk,
            verb=verb,
            amount=parsed,
            now=process.now(),
            action_id=str(action_id),
        )

    state = await update_table(table_id, change)
    metrics.MOVES.inc()
    return state


async def settle(*, table_id: int, current: Versioned | None = None) -> Versioned:
    """Write the ended hand to the database, then free the seats of those who left.

    ``current``: the state just read by the caller (the clock's), saving a read; the
    compare-and-set checks it like any other."""
    state = current or await read_table(table_id)
    if state is None or not state.doc.get("ended"):
        return state or await load_table_state(table_id)
    ended = state.doc["ended"]
    with metrics.SETTLEMENT.time():
        await in_db(records.settle_hand)(table_id=table_id, ended=ended)
    leavers = [s["user_id"] for s in state.doc["seats"] if s and s["leaving"]]
    for user_id in leavers:
        await in_db(records.leave_seat)(
            user_id=user_id, table_id=table_id, key=f"leave:{table_id}:{user_id}:after:{ended['number']}"
        )
    number = ended["number"]

    def change(current: Versioned) -> Doc | None:
        if not current.doc.get("ended") or current.doc["ended"]["number"] != number:
            return None
        return t.mark_settled(current.doc, now=process.now(), left=leavers)

    state = await update_table(table_id, change, settle_ended=False)
    if leavers:
        await notify_lobby(table_id)
    return state


async def start_next_hand(*, table_id: int, current: Versioned | None = None) -> Versioned:
    state = current or await load_table_state(table_id)
    if state.doc["hand"] or state.doc["ended"] or len(t.ready_positions(state.doc)) < 2:
        return state
    # Who will be dealt in goes with the numbering, in one transaction: one trip to the database
    # thread per hand start instead of two, and the hand is on record before any card is dealt.
    # The seed is the table's seed series' (games.live.series), secret until the series ends.
    lineup = records.Lineup.of_doc(state.doc)
    try:
        number, started, seed = await in_db(records.begin_hand_record)(table_id=table_id, lineup=lineup)
    except records.OutOfPlayTime as out:
        # Their daily play-time limit is reached (responsible play): sat out before the deal, so
        # the hand that just ended was their last today; the others' hand starts without them.
        state = await _sit_out(table_id=table_id, user_ids=out.user_ids)
        return await start_next_hand(table_id=table_id, current=state)
    return await deal_numbered_hand(
        table_id=table_id,
        number=number,
        started_at=started.isoformat(),
        seed=seed,
        lineup=lineup,
        epoch=state.doc.get("epoch"),
    )


async def _sit_out(*, table_id: int, user_ids: list[int]) -> Versioned:
    def change(current: Versioned) -> Doc:
        doc = current.doc
        for user_id in user_ids:
            position = position_of(doc, user_id)
            if position is None:  # left meanwhile
                continue
            doc = t.set_sitting_out(doc, user_id=user_id, sitting_out=True, now=process.now())
            # The table says why (each viewer reads it in their language).
            add_line(doc, "play_time_limit", name=doc["seats"][position]["name"])
        return doc

    state = await update_table(table_id, change)
    for user_id in user_ids:
        await in_db(records.save_seat_flags)(user_id=user_id, table_id=table_id, sitting_out=True)
        await in_db(events.record_sitting_out)(table_id=table_id, user_id=user_id, sitting_out=True)
    return state


async def deal_numbered_hand(
    *, table_id: int, number: int, started_at: str, seed: str, lineup: records.Lineup, epoch: str | None
) -> Versioned:
    """Deal the hand the database numbered, into the life of the table (``epoch``) it was numbered
    for. If the store lost the table meanwhile, the rebuild cancelled that hand: it is never dealt
    into the new table, whose next hand gets a number of its own (from the same seed series)."""

    def change(current: Versioned) -> Doc | None:
        if current.doc["hand"] or current.doc["ended"] or current.doc.get("epoch") != epoch:
            return None
        return t.start_hand(
            current.doc, number=number, now=process.now(), started_at=started_at, server_seed=seed
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
