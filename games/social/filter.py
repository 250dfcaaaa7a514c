"""The chat's word filter: the staff's words (ChatWord, edited in the admin) masked with asterisks.

Cheap on every message: the list is compiled into one pattern per process and kept until the
staff edit it. An edit (save or delete of a ChatWord, signals wired in games/apps.py) stamps a new
token in the shared cache after its commit; each process compares its pattern's token with the
shared one (one cache read) and reloads only when they differ, so every server process notices.
"""

# Cyrillic letters that look Latin are the point of the look-alike table below.
# ruff: noqa: RUF003

from __future__ import annotations

import re
import threading
import uuid
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

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


# Cyrillic letters that look like Latin ones (and back): a word typed with the other alphabet's
# look-alikes ("глупaк" with a Latin "a") is still the word. Both the list and the message are
# read through this table, one character for one, so a match masks the same characters typed.
_LOOKALIKES = str.maketrans("аеорсухкмтнвіј", "aeopcyxkmthbij")


def folded(text: str) -> str:
    """``text`` lower-cased and with look-alike letters made one, character for character."""
    out = []
    for char in text:
        lower = char.lower()
        out.append(lower if len(lower) == 1 else char)  # a letter whose lower case is longer stays
    return "".join(out).translate(_LOOKALIKES)


def compile_words(words: list[str]) -> re.Pattern[str] | None:
    """One pattern for every word, whole words only (so "class" is not masked for "ass"), in any
    case, Latin or Cyrillic (look-alike letters of either count as one); longer words first so a
    phrase wins over a word inside it. The pattern is matched against ``folded`` text."""
    cleaned = sorted({folded(w.strip()) for w in words if w.strip()}, key=lambda w: (-len(w), w))
    if not cleaned:
        return None
    body = "|".join(re.escape(w) for w in cleaned)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


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
    """``text`` with every filtered word replaced by as many asterisks as it has characters."""
    if pattern is None:
        pattern = word_pattern()
    if pattern is None:
        return text
    folded_text = folded(text)
    if len(folded_text) != len(text):  # cannot happen (one for one), but never mask the wrong letters
        return text
    masked = list(text)
    for match in pattern.finditer(folded_text):
        masked[match.start() : match.end()] = "*" * (match.end() - match.start())
    return "".join(masked)


def words_changed(**kwargs: Any) -> None:
    """A ChatWord was saved or deleted: every process reloads the list, once the edit is committed."""
    transaction.on_commit(lambda: cache.set(_token_key(), uuid.uuid4().hex, timeout=None))
