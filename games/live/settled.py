"""The "hand settled" event: settlement says that a hand is settled, and each part that keeps
something of it (the chips, the stored hand, the standings; a tournament's bust order later) has
subscribed to the event and writes its own share, instead of settlement knowing every one of them.

``publish`` runs inside settlement's database transaction, the subscribers in the order they
subscribed: everything they write is committed together with the rest of the settlement or not at
all, and a subscriber that raises rolls the whole settlement back (it is retried, as any failed
settlement is: games.live.service.settle). The parts below ``games.live`` (the standings) cannot
see this module, since the arrows run one way: they are subscribed where ``games.live`` uses
them (games/live/records.py); a part above it (a tournament) subscribes from its own code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from games.engine.hand import Hand
from games.kinds import TableKind


@dataclass(frozen=True, slots=True)
class HandSettled:
    """A hand whose result is being written, with what every subscriber needs of it."""

    table_id: int
    number: int
    ended: dict[str, Any]  # the table's document's ended hand (games/live/document.py)
    hand: Hand  # its engine state at the end: read it, never act on it
    players: list[int]  # user ids, in the hand's seat order
    deltas: dict[int, int]  # user id -> chips won (+) or lost (-) in the hand
    pots_won: dict[int, int]  # user id -> chips taken from the pot
    kind: TableKind  # the table's kind (games/kinds.py): where its chips live, whether its hands count
    series_id: int | None  # the seed series the hand was dealt from
    series_number: int | None
    record_id: int | None  # the hand's record, written when it started (None: lost, written now)
    started_at: datetime | None  # when the record says it started (None: no record)
    ended_at: datetime


Subscriber = Callable[[HandSettled], None]
_SUBSCRIBERS: list[tuple[str, Subscriber]] = []


def subscribe(name: str) -> Callable[[Subscriber], Subscriber]:
    """Subscribe a function to every hand settled, under a name of its own (a decorator)."""

    def register(handler: Subscriber) -> Subscriber:
        if name in subscribers():
            raise ValueError(f"a subscriber named {name!r} is already subscribed")
        _SUBSCRIBERS.append((name, handler))
        return handler

    return register


def subscribers() -> list[str]:
    """The subscribers' names, in the order they are told."""
    return [name for name, _handler in _SUBSCRIBERS]


@contextmanager
def subscribed(name: str, handler: Subscriber) -> Iterator[None]:
    """``handler`` subscribed for the duration of a block (for tests, and tools that watch)."""
    subscribe(name)(handler)
    try:
        yield
    finally:
        _SUBSCRIBERS.remove((name, handler))


def publish(event: HandSettled) -> None:
    """Tell every subscriber, inside the settlement's transaction (refused outside one: what they
    write must be committed with the settlement or not at all)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a hand settled is published inside the settlement's transaction")
    for _name, handler in _SUBSCRIBERS:
        handler(event)
