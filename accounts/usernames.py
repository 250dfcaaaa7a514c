"""Which usernames sign-up refuses: the room's own names, and names that look like one taken.

"Looks like" is decided on skeletons (``accounts.lookalikes``, shared with the chat's word filter):
two names look alike when their skeletons are equal; bot01 with a Cyrillic o (U+043E), ``BOT0l``
and ``bot01`` have one skeleton. ``User.username_skeleton`` stores it.

``username_refusal`` is asked by the allauth adapter (accounts.adapter.clean_username).
"""

from __future__ import annotations

import functools
import re

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from accounts.lookalikes import skeleton

COMPUTER_LEVELS = ("easy", "normal", "hard")


def computer_username(*, level: str) -> str:
    return f"computer-{level}"


# Names that would pass for the room speaking: its staff, its system, the computer's seats.
RESERVED_USERNAMES = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "staff",
        "support",
        "moderator",
        "system",
        "svara",
        "house",
        "dealer",
        "computer",
        *(computer_username(level=level) for level in COMPUTER_LEVELS),
    }
)
# Separators and a number at the end do not make another name: "Computer_Hard2" is the computer.
_SEPARATORS = re.compile(r"[-_.+@]")
_TRAILING_DIGITS = re.compile(r"\d+$")


def username_skeleton(name: str) -> str:
    """What ``name`` looks like: equal for names a reader cannot tell apart (accounts.lookalikes,
    the one normalisation the chat's word filter shares)."""
    return skeleton(name)


def _reserved_form(name: str) -> str:
    return username_skeleton(_TRAILING_DIGITS.sub("", _SEPARATORS.sub("", name)))


@functools.cache
def _reserved_forms() -> frozenset[str]:
    return frozenset(_reserved_form(name) for name in RESERVED_USERNAMES)


def is_reserved(username: str) -> bool:
    form = _reserved_form(username)
    return form in _reserved_forms() or form.startswith(_reserved_form("computer"))


def username_refusal(username: str) -> str | None:
    """Why sign-up refuses ``username`` (translated), or None. The same name in another case is
    left to allauth ("already taken")."""
    if is_reserved(username):
        return _("“%(name)s” is reserved for the room. Please choose another name.") % {"name": username}
    look_alikes = get_user_model().objects.filter(username_skeleton=username_skeleton(username))
    if look_alikes.exclude(username__iexact=username).exists():
        return _("“%(name)s” looks like the name of another player. Please choose another name.") % {
            "name": username
        }
    return None
