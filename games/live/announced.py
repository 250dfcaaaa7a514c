"""The states announced to a table's sockets, decoded once per process and shared.

A change is announced to the table's channel group with the document's JSON text as the store
holds it (``Versioned.raw``): packing a string for the channel layer is a copy, where packing
the nested document cost about as much as decoding it. Every socket of the table in a process
then needs the same document; ``announced_doc`` decodes it once and hands the same dict to each
of them, and the process that made the change never decodes it at all (``remember``).

The documents handed out are shared by every socket of the table in this process: read-only by
convention, like every ``Versioned.doc`` the service returns (views and templates only read).

An announcement from the Redis store also carries the state's incarnation and deadline, so a
process that decodes one hands the state to its store as the table's ``recent`` one
(``StateStore.observe``): with a table's players on two processes, the next move, made here, then
starts from the state the other process wrote instead of a stale one (a refused write and a read).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import orjson

from games.live.store import Deadline, Versioned, get_state_store

KEPT: Final = 2_000  # tables whose last announced document a process keeps

# table id -> (epoch, version, doc): the newest state this process announced or decoded.
_latest: dict[int, tuple[str | None, int, dict[str, Any]]] = {}


def remember(table_id: int, state: Versioned) -> None:
    """The state this process just wrote, so its own sockets need not decode the announcement."""
    _keep(table_id, (state.doc.get("epoch"), state.version, state.doc))


def announcement(state: Versioned) -> dict[str, Any]:
    """The group message for a new state (``TableConsumer.table_version`` reads it)."""
    message: dict[str, Any] = {
        "type": "table.version",
        "version": state.version,
        "epoch": state.doc.get("epoch"),
    }
    if state.raw:
        message["raw"] = state.raw
        if state.incarnation:
            message["incarnation"] = state.incarnation
            deadline = state.deadline
            message["deadline"] = [deadline.at, deadline.version] if deadline else None
    else:
        message["doc"] = state.doc
    return message


def announced_doc(table_id: int, event: dict[str, Any]) -> dict[str, Any] | None:
    """The document an announcement carries, decoded at most once in this process; None when it
    carries none (a bare hint: the socket reads the store)."""
    if "doc" in event:
        return event["doc"]
    raw = event.get("raw")
    if raw is None:
        return None
    key = (event.get("epoch"), event["version"])
    seen = _latest.get(table_id)
    if seen is not None and (seen[0], seen[1]) == key:
        return seen[2]
    doc = orjson.loads(raw)
    if seen is None or seen[0] != key[0] or seen[1] < key[1]:
        _keep(table_id, (key[0], key[1], doc))
        _observe(table_id, event, doc)
    return doc


def newest(table_id: int) -> tuple[str | None, int, dict[str, Any]] | None:
    """The newest state of the table this process announced or decoded: (epoch, version, doc).
    A socket that fell behind its table's announcements (a busy process) takes it instead of the
    older one it is handed, and skips the rest: one frame with the whole table at the newest
    version instead of one per version in between, and none lost."""
    return _latest.get(table_id)


def _observe(table_id: int, event: dict[str, Any], doc: dict[str, Any]) -> None:
    incarnation = event.get("incarnation")
    if not incarnation:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop, so no store of this process to tell (one made here would need closing)
    at_version = event.get("deadline")
    deadline = Deadline(at=at_version[0], version=at_version[1]) if at_version else None
    state = Versioned(
        version=event["version"], doc=doc, deadline=deadline, raw=event["raw"], incarnation=incarnation
    )
    get_state_store().observe(str(table_id), state)


def _keep(table_id: int, entry: tuple[str | None, int, dict[str, Any]]) -> None:
    _latest.pop(table_id, None)  # re-inserted last: the dict's order is the order of use
    if len(_latest) >= KEPT:
        del _latest[next(iter(_latest))]
    _latest[table_id] = entry


def forget_all() -> None:
    """Tests: start from nothing."""
    _latest.clear()
