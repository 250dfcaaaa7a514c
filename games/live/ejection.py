"""A banned (or self-excluded) player leaves every table at once: their hand in play is folded,
their seats are cashed out (when the hand is settled), and every table socket they have open is
closed."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils.translation import gettext_noop

from accounts.models import User
from games.live import records, service
from games.live.document import position_of

log = logging.getLogger(__name__)

BANNED_CLOSE_CODE = 4403  # the page says the player may not play here; it does not reconnect


def user_group(user_id: int) -> str:
    """Every table socket of one user, whichever process serves it."""
    return f"user.{user_id}"


async def eject_player(*, user: User, event: str = "user.banned") -> list[int]:
    """Take the player off every seat they hold and close their table sockets (``event`` names the
    consumer's handler, which says why); the tables left."""
    left = []
    for table_id in await service.in_db(records.seated_table_ids)(user_id=user.pk):
        state = await service.load_table_state(table_id)
        if position_of(state.doc, user.pk) is None:
            # Seated in the database but not in the table's document: cash the seat out directly.
            await service.in_db(records.leave_seat)(
                user_id=user.pk, table_id=table_id, key=f"eject:{table_id}:{user.pk}:{state.version}"
            )
        else:
            await service.table_leave(user=user, table_id=table_id)
        left.append(table_id)
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(user_group(user.pk), {"type": event})
    return left


def on_user_banned(sender: Any, *, user: User, **kwargs: Any) -> None:
    """The ban's signal (sent from a staff request's thread, after its commit)."""
    left = async_to_sync(eject_player)(user=user)
    if left:
        log.info("banned %s: left tables %s", user, left)


def on_user_self_excluded(sender: Any, *, user: User, **kwargs: Any) -> None:
    """The self-exclusion's signal (sent from the player's request thread, after its commit)."""
    left = async_to_sync(eject_player)(user=user, event="user.self_excluded")
    if left:
        log.info("self-excluded %s: left tables %s", user, left)


EXCLUDED_NOTICE = gettext_noop(
    "You have excluded yourself from play: your seats are closed, chips back in your wallet."
)
EJECTED_NOTICE = gettext_noop("You can no longer play here: your account was banned by staff.")


def on_user_timed_out(sender: Any, *, user: User, **kwargs: Any) -> None:
    """The time-out's signal (sent from the player's request or socket thread, after its commit):
    the room closes to the player at once, their seats as a self-exclusion's."""
    left = async_to_sync(eject_player)(user=user, event="user.timed_out")
    if left:
        log.info("time-out for %s: left tables %s", user, left)


TIMED_OUT_NOTICE = gettext_noop(
    "You are taking a break from play: your seats are closed, chips back in your wallet."
)
