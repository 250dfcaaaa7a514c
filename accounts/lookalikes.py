"""One normalisation of look-alike characters, for the usernames and the chat's word filter.

"Looks like" is decided on skeletons (as Unicode's UTS #39 does): two strings look alike when their
skeletons are equal. The skeleton maps every character to one representative of its group of
look-alikes, the groups being the confusables data of ``confusable-homoglyphs`` (Unicode's
confusables.txt) joined with each Latin letter's other case: bot01 with a Cyrillic o (U+043E),
``BOT0l`` and ``bot01`` have one skeleton.

``skeleton`` is what ``User.username_skeleton`` stores (changing it would call for recomputing the
stored ones); ``char_skeleton`` is the same for one character, with the invisible characters the
data wraps right-to-left glyphs in taken out, which the chat's filter reads a message through
(games.social.filter adds what a chat needs on top: marks, invisible characters, l33t, spacing).
"""

from __future__ import annotations

import functools
import string
import unicodedata
from collections import defaultdict

_RTL_MARK = "\u200e"  # the library wraps right-to-left glyphs in these


@functools.cache
def representatives() -> dict[str, str]:
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


def skeleton(text: str) -> str:
    """What ``text`` looks like: equal for strings a reader cannot tell apart."""
    table = representatives()
    text = unicodedata.normalize("NFKC", text)
    for _round in range(3):  # a representative may itself map on ("rn" is r and n); stops at once in practice
        mapped = "".join(table.get(char, char) for char in text).casefold()
        if mapped == text:
            break
        text = mapped
    return text


@functools.lru_cache(maxsize=4096)
def char_skeleton(char: str) -> str:
    """``skeleton`` of one character, without the invisible marks some representatives carry."""
    return skeleton(char).replace(_RTL_MARK, "")
