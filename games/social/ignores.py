"""Ignore lists: a player hides another's chat at every table, kept across sessions (Ignore rows).

The ignored player is not told. Ignoring is also blocking: it ends any friendship, request or
invitation between the two, and the ignored player can send the ignorer neither
(games/social/friends.py). After a change, the ignorer's open table sockets are told to
reload the list (a ``chat.ignores`` event to the user's group), so every open table follows.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.live.ejection import user_group
from games.models import Ignore
from games.social.friends import forget_between
from games.social.refusals import Refused

log = logging.getLogger(__name__)


class IgnoreRefused(Refused):
    """Not done; ``str()`` says why, in the active language."""


def _tell_sockets(user_id: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": "chat.ignores"})
    except Exception:  # the list is stored; an open page sees it on its next load
        log.exception("could not tell the sockets of user %s about their ignore list", user_id)


def ignore_player(*, user: User, ignored: User) -> Ignore:
    """``user`` stops seeing ``ignored``'s messages. Not oneself, nor the computer's players."""
    if ignored.pk == user.pk:
        raise IgnoreRefused(_("You cannot ignore yourself."))
    if ignored.computer_level:
        raise IgnoreRefused(_("The computer's players do not chat."))
    try:
        with transaction.atomic():
            row, _created = Ignore.objects.get_or_create(user=user, ignored=ignored)
            forget_between(user_id=user.pk, other_id=ignored.pk)
    except IntegrityError:  # the same request twice at once: the other one stored it
        row = Ignore.objects.get(user=user, ignored=ignored)
    transaction.on_commit(lambda: _tell_sockets(user.pk))
    return row


def unignore_player(*, user: User, ignored: User) -> bool:
    """``user`` sees ``ignored``'s messages again; False if they were not ignored."""
    deleted, _rows = Ignore.objects.filter(user=user, ignored=ignored).delete()
    transaction.on_commit(lambda: _tell_sockets(user.pk))
    return deleted > 0


def ignored_ids(*, user: User) -> frozenset[int]:
    """The ids of the players ``user`` ignores."""
    if user is None or not user.is_authenticated:
        return frozenset()
    return frozenset(Ignore.objects.filter(user_id=user.pk).values_list("ignored_id", flat=True))


def ignored_players(*, user: User) -> list[User]:
    """The players ``user`` ignores, by name."""
    return list(User.objects.filter(pk__in=ignored_ids(user=user)).order_by("username"))
