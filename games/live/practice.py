"""Practice tables: one-on-one against the computer, with practice chips that never touch the
wallet. Same engine, same service, same clock and the same hand history as a real table; the
computer's seat is a system user whose moves the turn clock makes (table.apply_bot_move).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.services.computer import computer_account
from games.engine.bots import LEVELS
from games.engine.table_rules import chips_to_be_dealt_in
from games.kinds import PRACTICE
from games.live import process, service
from games.live import transitions as t
from games.live.document import Doc, Refused, position_of, table_kind
from games.live.entries import COMPUTER_NAMES
from games.live.seat_rows import add_seat_row
from games.live.store import Versioned, get_state_store
from games.live.turn_time import PRACTICE_TURN_CHOICES
from games.models import Seat, Table

PRACTICE_STAKE = 10
PRACTICE_CHIPS = 500
PRACTICE_IDLE_SECONDS = 30 * 60  # a practice table nobody touched for this long is closed
LEVEL_NAMES = COMPUTER_NAMES


@dataclass(frozen=True)
class LevelStyle:
    """How a level plays, for the player choosing it: a character, a style, a line of personality
    (English msgids, worded in the reader's language by the page)."""

    character: str
    style: str
    personality: str


LEVEL_STYLES: dict[str, LevelStyle] = {
    "easy": LevelStyle(
        character=gettext_noop("Uncle Pesho"),
        style=gettext_noop("loose and passive"),
        personality=gettext_noop(
            "Plays almost every hand and calls to see your cards; he raises only with a monster. "
            "Bet your good hands: he pays."
        ),
    ),
    "normal": LevelStyle(
        character=gettext_noop("Aunt Stoyanka"),
        style=gettext_noop("tight and aggressive"),
        personality=gettext_noop(
            "Folds most hands, and when she plays she raises the pot. "
            "Her bets mean strength: steal the pots she gives up."
        ),
    ),
    "hard": LevelStyle(
        character=gettext_noop("The Professor"),
        style=gettext_noop("balanced"),
        personality=gettext_noop(
            "Plays a strategy solved by computer: mixes bets and bluffs so that no fixed rule beats him."
        ),
    ),
}
# The best response against each level, measured by bench/best_response.py (docs/bots.md).
STRENGTH_FILES = "bench/results/best_response_{level}.json"


def measured_exploitability(*, level: str, base: Path | None = None) -> dict[str, Any] | None:
    """What a player who targets the level's weaknesses wins from it, in chips a hand, as the
    committed benchmark result says (mean and 95% interval); None when there is no result."""
    path = (base or Path(settings.BASE_DIR)) / STRENGTH_FILES.format(level=level)
    try:
        real = json.loads(path.read_text())["real"]
        return {"mean": float(real["mean"]), "low": float(real["low"]), "high": float(real["high"])}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def bot_user(*, level: str) -> User:
    """The computer's account that plays the seats of one level (cannot log in)."""
    return computer_account(level=level, name=LEVEL_NAMES[level])


def _open_practice_table(*, user: User, level: str, turn_seconds: int) -> tuple[int, list[int]]:
    """Close the player's other practice tables; open a new one with both seats taken."""
    with transaction.atomic():
        old = list(
            Table.objects.filter(kind=PRACTICE.name, status=Table.Status.OPEN, created_by=user).values_list(
                "pk", flat=True
            )
        )
        table = Table.objects.create(
            # Named in the player's language: a practice table is theirs alone.
            name=_("Practice: %(player)s v %(computer)s")
            % {"player": user.get_username(), "computer": _(LEVEL_NAMES[level])},
            stake=PRACTICE_STAKE,
            seat_count=2,
            dark_play=True,
            turn_seconds=turn_seconds,
            private=True,
            kind=PRACTICE.name,
            created_by=user,
        )
        add_seat_row(table=table, user=user, position=0, table_chips=PRACTICE_CHIPS)
        add_seat_row(
            table=table,
            user=bot_user(level=level),
            position=1,
            table_chips=PRACTICE_CHIPS,
            bot_level=level,
        )
    return table.pk, old


async def practice_start(*, user: User, level: str, turn_seconds: int = 30) -> int:
    """Start a practice table for ``user`` against the computer at ``level``, with a turn of
    ``turn_seconds`` (one of PRACTICE_TURN_CHOICES; 0: no clock at all); returns its id."""
    if level not in LEVELS:
        raise Refused(_("choose a level: %(levels)s") % {"levels": ", ".join(LEVELS)})
    if turn_seconds not in PRACTICE_TURN_CHOICES:
        raise Refused(_("choose a turn time from the list"))
    if not user.is_authenticated:
        raise Refused(_("log in to practise"))
    table_id, old = await database_sync_to_async(_open_practice_table)(
        user=user, level=level, turn_seconds=turn_seconds
    )
    for old_id in old:
        await service.close_own_table(table_id=old_id)
    await service.load_table_state(table_id)  # builds the document; the first hand is scheduled
    return table_id


async def practice_new_game(*, user: User, table_id: int) -> Versioned:
    """Both sides back to 500 practice chips, once one side cannot play another hand."""
    state = await service.load_table_state(table_id)
    doc = state.doc
    if table_kind(doc) is not PRACTICE or position_of(doc, user.pk) is None:
        raise Refused(_("this is not your practice table"))
    if doc["hand"] or doc["ended"]:
        raise Refused(_("finish the hand in play first"))
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    if all(s["chips"] >= need for s in doc["seats"] if s):
        raise Refused(_("both sides can still play: a new game starts when one is out of chips"))
    await database_sync_to_async(_reset_chips)(table_id=table_id)

    def reset(current: Versioned) -> Doc:
        new = current.doc
        for seat in new["seats"]:
            if seat:
                new = t.set_chips(new, user_id=seat["user_id"], chips=PRACTICE_CHIPS, now=process.now())
        return new

    return await service.update_table(table_id, reset)


def _reset_chips(*, table_id: int) -> None:
    Seat.objects.filter(table_id=table_id).update(table_chips=PRACTICE_CHIPS, sitting_out=False)


async def close_idle_practice_tables(
    *, now: float | None = None, states: dict[str, Versioned] | None = None
) -> list[int]:
    """Practice tables nobody has touched for PRACTICE_IDLE_SECONDS are closed.

    ``states`` (table id -> state) are the tables as the caller just read them; else every
    table is read."""
    now = process.now() if now is None else now
    if states is None:
        states = {}
        for key in await get_state_store().table_ids():
            if (state := await service.read_table(int(key))) is not None:
                states[key] = state
    closed = []
    for key, state in states.items():
        if not table_kind(state.doc).closes_when_idle:
            continue
        if state.doc.get("touched", now) < now - PRACTICE_IDLE_SECONDS:
            await service.close_own_table(table_id=int(key))
            closed.append(int(key))
    return closed
