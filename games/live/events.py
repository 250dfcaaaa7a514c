"""What players do at a table, written as TableEvents so staff can follow a dispute.

Synchronous, one INSERT each (``record_timeouts``: one for all the seats), for the database side
of the live service to call where the thing happens: inside the transaction that moves the chips
(a buy-in, a cash-out), so an event is on record exactly when its ledger transaction is. Staff's
own actions (closing, removing, renaming) are written by games.live.staff.
"""

from __future__ import annotations

from typing import Any

from games.models import TableEvent

Kind = TableEvent.Kind


def record_sat(*, table_id: int, user_id: int, position: int, buy_in: int) -> TableEvent:
    """A player took a seat and bought in (from the wallet, or practice chips)."""
    return TableEvent.objects.create(
        table_id=table_id, kind=Kind.SAT, user_id=user_id, amount=buy_in, detail={"seat": position}
    )


def record_chips_added(*, table_id: int, user_id: int, amount: int) -> TableEvent:
    return TableEvent.objects.create(table_id=table_id, kind=Kind.BUY_IN, user_id=user_id, amount=amount)


def record_left(*, table_id: int, user_id: int, cashed_out: int) -> TableEvent:
    """A player's seat was freed and ``cashed_out`` chips went back to their wallet."""
    return TableEvent.objects.create(table_id=table_id, kind=Kind.LEFT, user_id=user_id, amount=cashed_out)


def record_sitting_out(*, table_id: int, user_id: int, sitting_out: bool) -> TableEvent:
    """A player chose to sit out, or came back."""
    kind = Kind.SAT_OUT if sitting_out else Kind.BACK
    return TableEvent.objects.create(table_id=table_id, kind=kind, user_id=user_id)


def timeouts_between(*, before: dict[str, Any], after: dict[str, Any]) -> list[tuple[int, bool]]:
    """Who ran out of time from one table document to the next, and whether that sat them out.

    Read from the seats' timeout counters (games.live.transitions.apply_timeout counts each one), so it
    holds however many moves lie between the two documents.
    """
    counted = {seat["user_id"]: seat for seat in before.get("seats", []) if seat}
    found = []
    for seat in after.get("seats", []):
        if not seat:
            continue
        old = counted.get(seat["user_id"])
        if old is not None and seat["timeouts"] > old["timeouts"]:
            found.append((seat["user_id"], bool(seat["away"] and not old["away"])))
    return found


def time_banks_drawn(*, before: dict[str, Any], after: dict[str, Any]) -> list[tuple[int, int]]:
    """Who drew on their time bank from one table document to the next, and how many seconds.

    A seat's ``bank`` is what is left of it (missing: the whole of the table's ``time_bank``), so
    the seconds drawn are what it lost between the two documents.
    """
    size = after.get("table", {}).get("time_bank", 0)
    counted = {seat["user_id"]: seat for seat in before.get("seats", []) if seat}
    found = []
    for seat in after.get("seats", []):
        old = counted.get(seat["user_id"]) if seat else None
        if old is None or seat.get("bank") is None:
            continue
        had = size if old.get("bank") is None else old["bank"]
        if seat["bank"] < had:
            found.append((seat["user_id"], had - seat["bank"]))
    return found


def record_timeouts(*, table_id: int, before: dict[str, Any], after: dict[str, Any]) -> list[TableEvent]:
    """The turn clock acted for someone between ``before`` and ``after`` (the documents around a
    deadline's change): a time bank drawn, or a timeout, and a sit-out where it was the one too many."""
    hand = before.get("hand") or {}
    events = [
        TableEvent(
            table_id=table_id,
            kind=Kind.TIME_BANK,
            user_id=user_id,
            hand_number=hand.get("number"),
            amount=seconds,
        )
        for user_id, seconds in time_banks_drawn(before=before, after=after)
    ]
    for user_id, sat_out in timeouts_between(before=before, after=after):
        events.append(
            TableEvent(table_id=table_id, kind=Kind.TIMEOUT, user_id=user_id, hand_number=hand.get("number"))
        )
        if sat_out:
            events.append(
                TableEvent(
                    table_id=table_id,
                    kind=Kind.SAT_OUT,
                    user_id=user_id,
                    hand_number=hand.get("number"),
                    detail={"by": "timeouts"},
                )
            )
    return TableEvent.objects.bulk_create(events) if events else []
