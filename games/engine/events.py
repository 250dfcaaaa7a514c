"""What a move did: the events ``Hand.act`` returns, in the order they happened.

A move is one event, a plain tuple ``(kind, seat, chips)``: every decision of every hand makes
one, and a tuple is built in one step where a NamedTuple costs several times as much (the
engine's benchmark would lose 4-8 %, as an attempt with richer values did). ``chips`` is what
the move put in: the dark bet, the call's cost, the join fee; for a raise the bet it raised to;
None for the moves that put nothing in (decline, fold, pass, skip, leave).

The pot won ends every hand: ``(WON, seat, pot)``, a plain tuple of the same shape. What else a
move may lead to (a svara opened, its replay dealt, a svara called off and its pot split) is
rare, so those are NamedTuples with named fields; their first field is the kind too, so
``event[0]`` tells any event's kind. Seats are the hand's (indices into its names).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

DARK, DECLINE, CALL, RAISE, FOLD, PASS = "dark", "decline", "call", "raise", "fold", "pass"
JOIN, SKIP, LEAVE = "join", "skip", "leave"
# A fold with nothing to call is a pass (RULES.md §4): the event says which, as the log does.
MOVE_KINDS = (DARK, DECLINE, CALL, RAISE, FOLD, PASS, JOIN, SKIP, LEAVE)
SVARA_OPENED, REPLAY_DEALT, WON, CALLED_OFF, SPLIT = "svara", "replay", "won", "called_off", "split"

# (kind, seat, chips put in or raised to, or None).
Move = tuple[str, int, int | None]
# (WON, seat, the pot): ``seat`` wins the pot, at a showdown or as the last hand in. A plain tuple
# like a move, as every hand ends with one: a NamedTuple's instances cost a microsecond more each
# to make and free, 1-2 % of a heads-up hand.
Won = tuple[str, int, int]


class SvaraOpened(NamedTuple):
    """A showdown tied: the pot is replayed. ``fee`` is what joining costs, None when nobody
    could join (the replay is dealt at once)."""

    kind: Literal["svara"]
    tied: tuple[int, ...]
    points: int
    pot: int
    fee: int | None


class ReplayDealt(NamedTuple):
    """The ``number``-th replay of the svara is dealt, for ``pot``."""

    kind: Literal["replay"]
    number: int
    pot: int


class CalledOff(NamedTuple):
    """Every tied player left before the replay (RULES.md §5): the fees paid go back
    (``refunds``: seat, chips) and ``pot`` is split among the tied (the ``Split`` after it)."""

    kind: Literal["called_off"]
    pot: int
    refunds: tuple[tuple[int, int], ...]


class Split(NamedTuple):
    """The pot shared: (seat, chips) for each seat that had a part, in showdown order."""

    kind: Literal["split"]
    shares: tuple[tuple[int, int], ...]


Outcome = SvaraOpened | ReplayDealt | CalledOff | Split | Won
Event = Move | Outcome
