"""What a move did, as the hand reports it: ``Hand.act`` returns a list of these, in order.

One small immutable value per thing that happened (a dark bet, a decline, a call, a raise, a fold,
a leave, a svara opened, a join, a skip, a replay dealt, a win, a svara called off and its pot
split), so that a caller reads what a move did instead of comparing the hand before and after.
They are NamedTuples rather than frozen dataclasses for the same reason as ``hand.Legal``: the
engine makes one at nearly every move of every hand, and a tuple is several times cheaper to make
(``bench/engine.py`` holds the engine to its speed). Seats are indices into the hand's players.
"""

from __future__ import annotations

from typing import NamedTuple


class DarkBet(NamedTuple):
    seat: int
    amount: int


class Declined(NamedTuple):
    """The seat declined to bet dark: the dark round is over (or timed out in it)."""

    seat: int


class Called(NamedTuple):
    seat: int
    amount: int  # the chips put in to bring the bet up to the stake to match


class Raised(NamedTuple):
    seat: int
    to: int  # the seat's total bet after the raise (HAND_FORMAT.md: raise *to* R)


class Folded(NamedTuple):
    """A fold, a pass or a timeout in the betting."""

    seat: int


class Left(NamedTuple):
    """The player left the table: out of this hand, whoever's turn it was (RULES.md §5)."""

    seat: int


class SvaraOpened(NamedTuple):
    tied: tuple[int, ...]
    join_fee: int


class Joined(NamedTuple):
    seat: int
    fee: int


class Skipped(NamedTuple):
    """Asked to join the svara, the seat did not (a skip or a timeout)."""

    seat: int


class ReplayDealt(NamedTuple):
    deal: int  # 1 for the first svara replay, ...
    seats: tuple[int, ...]  # dealt in, in dealing order


class Won(NamedTuple):
    seat: int
    pot: int


class CalledOff(NamedTuple):
    """Every tied player left before the replay: each join fee went back to whoever paid it."""

    refunds: tuple[tuple[int, int], ...]  # (seat, fee)


class Split(NamedTuple):
    """A svara called off: the pot split among the tied players (after ``CalledOff``)."""

    shares: tuple[tuple[int, int], ...]  # (seat, chips), a remainder chip at a time from the dealer's left


Event = (
    DarkBet
    | Declined
    | Called
    | Raised
    | Folded
    | Left
    | SvaraOpened
    | Joined
    | Skipped
    | ReplayDealt
    | Won
    | CalledOff
    | Split
)
