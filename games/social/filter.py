"""The chat's word filter: the staff's words (ChatWord, edited in the admin) masked with asterisks.

A message is read through one skeleton, the usernames' (accounts.lookalikes): the word with
Cyrillic look-alike letters, in full-width or mathematical bold letters, with marks ("bädwörd"),
with a zero-width character or a soft hyphen inside, "b@dw0rd", "b a d w o r d" and "b.a.d.w.o.r.d"
all read as the word (issue 37 counted 15 obvious spellings that passed).

Cheap on every message: the list is compiled into one pattern per process and kept until the
staff edit it. An edit (save or delete of a ChatWord, signals wired in games/apps.py) stamps a new
token in the shared cache after its commit; each process compares its pattern's token with the
shared one (one cache read) and reloads only when they differ, so every server process notices.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
import uuid
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from accounts.lookalikes import char_skeleton
from games.models import ChatWord

_lock = threading.Lock()
# (token, pattern) of the list this process compiled; the pattern is None for an empty list.
_compiled: tuple[str, re.Pattern[str] | None] | None = None


def _token_key() -> str:
    # The live state's prefix keeps test runs (and tests) apart in one shared Redis.
    return f"{settings.LIVE_STATE_PREFIX}chat:words"


def _shared_token() -> str:
    token = cache.get(_token_key())
    if token is None:
        cache.add(_token_key(), uuid.uuid4().hex, timeout=None)
        token = cache.get(_token_key())
    return str(token)


# Digits and signs typed for letters ("b@dw0rd"), read as letters only inside a word (between two
# letters or digits): "badword!" ends with a "!", and "4 you" is a number.
_LEET = {"@": "a", "4": "a", "3": "e", "0": "o", "1": "i", "!": "i", "$": "s", "5": "s", "7": "t"}
# In the skeleton every character that is no letter or digit is one of two separators.
_GAP, _SPACE = ".", " "


@functools.lru_cache(maxsize=8192)
def _letters(char: str) -> str:
    """What one character of a message reads as: its letters' skeleton (accounts.lookalikes, the
    usernames' too), "" for what is not seen (zero-width characters, a soft hyphen, a combining
    mark), or a separator."""
    if unicodedata.category(char) == "Cf":  # format characters: zero-width, soft hyphen, bidi marks
        return ""
    if char.isalnum() and char == char.casefold() and not _has_marks(char):
        # A small letter or one without case (mathematical bold, full-width): its look-alike group.
        return _no_gaps(char_skeleton(char))
    if not char.isalnum() and char_skeleton(char).isalnum():
        return char_skeleton(char)  # a sign that looks like letters ("∏" for "п", "|" for "l")
    # Compatibility forms to plain letters, the marks off them ("ä" reads "a"; a mark typed alone
    # reads nothing), then lower case: the shared groups join only Latin letters' cases, and a
    # capital Cyrillic GHE falls in another group than the small one.
    bare = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    out = []
    for c in bare:
        if c.isspace():
            out.append(_SPACE)
        elif not c.isalnum():
            out.append(_GAP)
        else:
            out.extend(_no_gaps(char_skeleton(x)) for x in c.casefold())
    return "".join(out)


def _has_marks(char: str) -> bool:
    return any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", char))


def _no_gaps(letters: str) -> str:
    return "".join(x for x in letters if x not in (_GAP, _SPACE))


def skeleton_text(text: str) -> str:
    """``text`` as the filter reads it (``_skeleton_with_places`` without the places)."""
    return _skeleton_with_places(text)[0]


def _skeleton_with_places(text: str) -> tuple[str, list[int]]:
    """The message read through ``_letters`` (l33t inside words too), and for each character of
    that reading the index of the message's character it came from."""
    read = [_letters(char) for char in text]
    seen = [i for i, part in enumerate(read) if part]  # invisible characters have no neighbours
    for n, i in enumerate(seen):
        letter = _LEET.get(text[i])
        if letter is None or n == 0 or n == len(seen) - 1:
            continue
        before, after = read[seen[n - 1]], read[seen[n + 1]]
        if before[-1] not in (_GAP, _SPACE) and after[0] not in (_GAP, _SPACE):
            read[i] = char_skeleton(letter)
    chars: list[str] = []
    places: list[int] = []
    for i, part in enumerate(read):
        chars.append(part)
        places.extend([i] * len(part))
    return "".join(chars), places


def _word_regex(word: str) -> str | None:
    """One word (or phrase) of the list as a pattern on skeletons: each letter once or repeated
    ("baaad"), the letters either together with signs between them ("b.a.d", "bad-word") or each
    apart ("b a d w o r d")."""
    reading = _skeleton_with_places(word.strip())[0]
    parts = [p for p in re.split(r"[. ]+", reading) if p]
    if not parts:
        return None

    def letters(part: str, between: str) -> str:
        return between.join(f"(?:{re.escape(c)})+" for c in part)

    together = "[. ]+".join(letters(p, r"\.*") for p in parts)
    apart = "[. ]+".join(letters(p, "[. ]+") for p in parts)
    return together if together == apart else f"{together}|{apart}"


def compile_words(words: list[str]) -> re.Pattern[str] | None:
    """One pattern for every word, whole words only (so "class" is not masked for "ass"), however
    it is spelled: in any case, with look-alike letters of any alphabet (the usernames' skeleton),
    with invisible characters, marks, l33t or separators between its letters. Longer words first
    so a phrase wins over a word inside it. The pattern is matched against ``skeleton_text``."""
    cleaned = sorted({w.strip() for w in words if w.strip()}, key=lambda w: (-len(w), w))
    bodies = [body for body in (_word_regex(w) for w in cleaned) if body]
    if not bodies:
        return None
    body = "|".join(f"(?:{b})" for b in bodies)
    return re.compile(rf"(?<![^. ])(?:{body})(?![^. ])")


def word_pattern() -> re.Pattern[str] | None:
    """The staff's list as one pattern, reloaded only after an edit."""
    global _compiled
    token = _shared_token()
    current = _compiled
    if current is not None and current[0] == token:
        return current[1]
    with _lock:
        # Read the words after the token: an edit committed meanwhile stamps a newer token,
        # and the next message reloads again.
        pattern = compile_words(list(ChatWord.objects.values_list("word", flat=True)))
        _compiled = (token, pattern)
    return pattern


def mask_words(text: str, *, pattern: re.Pattern[str] | None = None) -> str:
    """``text`` with every filtered word replaced by as many asterisks as it has characters (the
    invisible ones and the separators inside it too): the length is kept."""
    if pattern is None:
        pattern = word_pattern()
    if pattern is None:
        return text
    reading, places = _skeleton_with_places(text)
    masked = list(text)
    for match in pattern.finditer(reading):
        if match.end() > match.start():
            start, end = places[match.start()], places[match.end() - 1] + 1
            masked[start:end] = "*" * (end - start)
    return "".join(masked)


def words_changed(**kwargs: Any) -> None:
    """A ChatWord was saved or deleted: every process reloads the list, once the edit is committed."""
    transaction.on_commit(lambda: cache.set(_token_key(), uuid.uuid4().hex, timeout=None))
