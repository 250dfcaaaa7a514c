"""Which usernames sign-up refuses: the room's own names, and names that look like one taken.

"Looks like" is decided on skeletons (as Unicode's UTS #39 does): two names look alike when their
skeletons are equal. The skeleton maps every character to one representative of its group of
look-alikes, the groups being the confusables data of ``confusable-homoglyphs`` (Unicode's
confusables.txt) joined with each Latin letter's other case, as usernames ignore case: bot01 with
a Cyrillic o (U+043E), ``BOT0l`` and ``bot01`` have one skeleton. ``User.username_skeleton`` stores it.

``username_refusal`` is asked by the allauth adapter (accounts.adapter.clean_username).
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

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
_RTL_MARK = "\u200e"  # the library wraps right-to-left glyphs in these


@functools.cache
def _representatives() -> dict[str, str]:
    """Each character that has look-alikes -> its group's representative (built once, on first use)."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def join(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    for char, glyphs in confusables_data.items():
        for glyph in glyphs:
            join(char, glyph["c"].strip(_RTL_MARK))
    for letter in string.ascii_lowercase:
        join(letter, letter.upper())
    groups: dict[str, list[str]] = defaultdict(list)
    for member in parent:
        groups[find(member)].append(member)
    table: dict[str, str] = {}
    for members in groups.values():
        # Plain ASCII if the group has it, the longest ("rn" for m), then the first: a fixed choice.
        representative = min(members, key=lambda s: (not s.isascii(), -len(s), s))
        table.update((m, representative) for m in members if len(m) == 1)
    return table


def username_skeleton(name: str) -> str:
    """What ``name`` looks like: equal for names a reader cannot tell apart."""
    table = _representatives()
    text = unicodedata.normalize("NFKC", name)
    for _round in range(3):  # a representative may itself map on ("rn" is r and n); stops at once in practice
        mapped = "".join(table.get(char, char) for char in text).casefold()
        if mapped == text:
            break
        text = mapped
    return text


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
