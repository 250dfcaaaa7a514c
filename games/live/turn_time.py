"""How long a player has to act (WCAG 2.2.1, timing adjustable): the table's turn time; none at
all on a practice table whose player asked for none; and, at real tables, a small time bank.

The time bank: whoever sits down at a real table has ``LIVE_TIME_BANK_SECONDS`` (30 by default;
the table's document holds it as ``time_bank``) extra for the whole
sitting (until they leave the seat; a table rebuilt after the store lost it gives it again). When
their turn's clock runs out and the bank is not empty, the clock does not fold them: the whole bank
is added to that turn at once, the table says so ("ann uses the time bank: 30 s more"), and the bank
is empty for the rest of the sitting. The next time the clock runs out, it folds as before. The
computer has no bank, and practice tables have none: their player picks a longer turn, or none.

Pure functions, no Django: the transitions (transitions.py) call them inside a compare-and-set.
"""

from __future__ import annotations

from typing import Final, NamedTuple

NO_LIMIT: Final = 0  # a practice table's turn time when its player asked for no clock
PRACTICE_TURN_CHOICES: Final = (30, 60, 120, NO_LIMIT)


class ClockOut(NamedTuple):
    """What running out of time means: ``extra`` seconds more for this turn (0: the clock acts for
    the player, folding) and the ``bank`` left for the rest of the sitting."""

    extra: int
    bank: int


def turn_deadline(*, now: float, seconds: int) -> float | None:
    """When a turn of ``seconds`` begun at ``now`` runs out; None for a turn with no clock."""
    return None if seconds <= NO_LIMIT else now + seconds


def clock_out(*, bank: int | None, size: int, has_bank: bool) -> ClockOut:
    """The turn's clock ran out for a player with ``bank`` seconds left of a bank of ``size`` (None:
    not drawn yet this sitting, so all of it). A seat without one (the computer's) is acted for at
    once, and so is everyone at a table whose bank is 0."""
    left = max(0, size if bank is None else min(bank, size))
    if not has_bank or left == 0:
        return ClockOut(extra=0, bank=left)
    return ClockOut(extra=left, bank=0)
