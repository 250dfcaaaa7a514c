"""Which usernames sign-up refuses: the room's own names (the computer's accounts, staff words).

``username_refusal`` is asked by the allauth adapter (accounts.adapter.clean_username); it returns
the reason, translated, or None.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from accounts.services.computer import COMPUTER_LEVELS, computer_username

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


def _plain(name: str) -> str:
    return _TRAILING_DIGITS.sub("", _SEPARATORS.sub("", name.casefold()))


_RESERVED_PLAIN = frozenset(_plain(name) for name in RESERVED_USERNAMES)


def is_reserved(username: str) -> bool:
    plain = _plain(username)
    return plain in _RESERVED_PLAIN or plain.startswith("computer")


def username_refusal(username: str) -> str | None:
    if is_reserved(username):
        return _("“%(name)s” is reserved for the room. Please choose another name.") % {"name": username}
    return None
