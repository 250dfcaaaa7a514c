"""Ignore lists: a player hides another's chat messages from themselves, at every table.

The ignored player is not told (nothing here sends anything); the list is kept in the database,
so it holds across sessions and processes.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Ignore
from games.social.refusals import Refused


def _person(user: Any) -> User:
    if not isinstance(user, User) or user.pk is None:
        raise Refused(_("There is no such player; nothing was changed."))
    fresh = User.objects.filter(pk=user.pk, is_active=True).first()
    if fresh is None:
        raise Refused(_("There is no such player; nothing was changed."))
    return fresh


def ignore_player(*, user: Any, ignored: Any) -> Ignore:
    """``user`` no longer sees ``ignored``'s messages; ignoring twice keeps the one entry."""
    user, ignored = _person(user), _person(ignored)
    if user.pk == ignored.pk:
        raise Refused(_("You cannot ignore yourself."))
    existing = Ignore.objects.filter(user=user, ignored=ignored).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return Ignore.objects.create(user=user, ignored=ignored)
    except IntegrityError:
        # The same button pressed twice at once: the other request stored it.
        return Ignore.objects.get(user=user, ignored=ignored)


def unignore_player(*, user: Any, ignored: Any) -> bool:
    """``user`` sees ``ignored``'s messages again; whether there was an entry to remove."""
    user, ignored = _person(user), _person(ignored)
    deleted, _rows = Ignore.objects.filter(user=user, ignored=ignored).delete()
    return bool(deleted)


def is_ignoring(*, user: Any, ignored: Any) -> bool:
    if not isinstance(user, User) or user.pk is None or not isinstance(ignored, User):
        return False
    return Ignore.objects.filter(user_id=user.pk, ignored_id=ignored.pk).exists()


def ignored_ids(*, user: Any) -> set[int]:
    """Whose messages ``user`` does not see (empty for a visitor)."""
    if not isinstance(user, User) or user.pk is None:
        return set()
    return set(Ignore.objects.filter(user_id=user.pk).values_list("ignored_id", flat=True))
