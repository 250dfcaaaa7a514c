"""Table chat: what a player may say at a table, kept for moderation, and what a reader is shown.

``send_chat`` checks everything before anything is stored: the text (or quick phrase), the table's
chat setting, a ban, a staff mute and the flood limit. A refusal raises ``ChatRefused`` with a
notice in the active language, and nothing is stored. The caller (the table's socket) announces a
stored line to the table; each reader's socket words it (quick phrases in the reader's language)
and hides it from a reader who ignores its sender.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.services.bans import is_banned
from games.models import ChatMessage, ChatMode, Seat, Table
from games.models.social import MESSAGE_MAX_LENGTH
from games.social.filter import mask_words
from games.social.moderation import active_mute
from games.social.refusals import Refused

RECENT_LINES = 50  # whoever opens a table reads this many of its last lines
FLOOD_LIMIT = 5  # messages a player may send ...
FLOOD_WINDOW = 10  # ... in this many seconds; one more and they are muted for
FLOOD_MUTE = 60  # seconds

# The quick phrases: key (what the page sends) -> English (the message id; each reader's language).
QUICK_PHRASES: dict[str, str] = {
    "gl": gettext_noop("Good luck"),
    "nh": gettext_noop("Nice hand"),
    "ty": gettext_noop("Thanks"),
    "wp": gettext_noop("Well played"),
    "bl": gettext_noop("Bad luck"),
    "hi": gettext_noop("Hello"),
}

# Markup is refused, not silently escaped (the bad input): a tag, a comment or a
# character reference. A lone "<" ("<3", "a < b") is plain text, escaped when shown.
_MARKUP = re.compile(r"<[/!?a-zA-Z]|&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
# Characters that are not text: controls, line breaks, and the bidirectional overrides that
# would turn the rest of the chat line around. (Joiners stay: emoji sequences need them.)
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class ChatRefused(Refused):
    """A message not taken; ``str()`` is the notice for its sender, in the active language."""


@dataclass(frozen=True)
class ChatLine:
    """One line as the table's sockets pass it around (no database read per reader)."""

    id: int
    table_id: int
    user_id: int | None
    username: str
    text: str
    phrase: str
    created_at: str  # ISO 8601, UTC

    @classmethod
    def of(cls, message: ChatMessage) -> ChatLine:
        user = message.user
        return cls(
            id=message.pk,
            table_id=message.table_id,
            user_id=message.user_id,
            username=user.get_username() if user is not None else "",
            text=message.text,
            phrase=message.phrase,
            created_at=message.created_at.isoformat(),
        )

    def event(self) -> dict[str, Any]:
        """The group event that announces it (its id, and what a reader needs to show it)."""
        return {"type": "chat.message", "message_id": self.id, "line": asdict(self)}

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> ChatLine:
        return cls(**event["line"])

    @property
    def when(self) -> datetime:
        return datetime.fromisoformat(self.created_at)


def clean_text(text: object) -> str:
    """The message as stored: stripped, refused when empty, too long, markup or not plain text."""
    if not isinstance(text, str):
        raise ChatRefused(_("That message could not be read."))
    text = text.strip()
    if not text:
        raise ChatRefused(_("Type a message first."))
    if len(text) > MESSAGE_MAX_LENGTH:
        raise ChatRefused(
            _("A message may have at most %(limit)d characters (this one has %(count)d).")
            % {"limit": MESSAGE_MAX_LENGTH, "count": len(text)}
        )
    for char in text:
        if char in _BIDI or unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise ChatRefused(_("A message may not contain control characters or line breaks."))
    if _MARKUP.search(text):
        raise ChatRefused(_("A message may not contain HTML."))
    return text


def phrase_text(phrase: str) -> str:
    """A quick phrase in the active language."""
    return _(QUICK_PHRASES[phrase])


def _is_seated(*, user_id: int, table_id: int) -> bool:
    return Seat.objects.filter(table_id=table_id, user_id=user_id).exists()


def _clock(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def _flood_key(user_id: int, what: str) -> str:
    # The live state's prefix keeps test runs (and tests) apart in one shared Redis.
    return f"{settings.LIVE_STATE_PREFIX}chat:{what}:{user_id}"


def _check_flood(*, user_id: int, now: datetime) -> None:
    """Count the message in the shared cache (every server process sees the same counts): the
    sixth in ten seconds mutes the player for a minute. A muted player's messages are not counted."""
    muted_until = cache.get(_flood_key(user_id, "flood-muted"))
    if muted_until is not None and muted_until > now.timestamp():
        until = datetime.fromtimestamp(muted_until, tz=now.tzinfo)
        raise ChatRefused(_("Too many messages: you are muted until %(time)s UTC.") % {"time": _clock(until)})
    key = _flood_key(user_id, "flood")
    cache.add(key, 0, timeout=FLOOD_WINDOW)  # the window starts with its first message
    try:
        count = cache.incr(key)
    except ValueError:  # the window ran out between the two calls
        cache.set(key, 1, timeout=FLOOD_WINDOW)
        count = 1
    if count > FLOOD_LIMIT:
        until = now + timedelta(seconds=FLOOD_MUTE)
        cache.set(_flood_key(user_id, "flood-muted"), until.timestamp(), timeout=FLOOD_MUTE)
        cache.delete(key)
        raise ChatRefused(
            _("Too many messages in a short time: you are muted for %(seconds)d seconds.")
            % {"seconds": FLOOD_MUTE}
        )


def send_chat(
    *,
    user: User,
    table_id: int,
    text: object = None,
    phrase: object = None,
    now: datetime | None = None,
) -> ChatLine:
    """Say something at a table: a free ``text`` or a quick ``phrase`` key. Returns the stored
    line (with the filter's asterisks); raises ChatRefused, storing nothing."""
    now = now or timezone.now()
    if phrase not in (None, ""):
        if not isinstance(phrase, str) or phrase not in QUICK_PHRASES:
            raise ChatRefused(_("There is no such quick phrase."))
        cleaned = QUICK_PHRASES[phrase]
    else:
        phrase = ""
        cleaned = clean_text(text)
    table = Table.objects.filter(pk=table_id).only("chat", "hands_started").first()
    if table is None:
        raise ChatRefused(_("There is no such table."))
    if table.chat == ChatMode.OFF:
        raise ChatRefused(_("Chat is off at this table."))
    if table.chat == ChatMode.PLAYERS and not _is_seated(user_id=user.pk, table_id=table_id):
        raise ChatRefused(_("Only the players may chat at this table."))
    if is_banned(user=user):
        raise ChatRefused(_("You may not chat: your account was banned by staff."))
    mute = active_mute(user=user)  # the staff's (games.social.moderation)
    if mute is not None:
        raise ChatRefused(_("You are muted until %(time)s UTC.") % {"time": _clock(mute.until)})
    _check_flood(user_id=user.pk, now=now)
    message = ChatMessage.objects.create(
        table_id=table_id,
        user=user,
        hand_number=table.hands_started,
        text=cleaned if phrase else mask_words(cleaned),
        phrase=phrase,
        created_at=now,
    )
    return ChatLine.of(message)


def recent_messages(
    *, table_id: int, viewer: User | None = None, ignored: frozenset[int] | None = None
) -> list[ChatLine]:
    """The table's last 50 lines not deleted, oldest first, without those of players the viewer
    ignores (``ignored``: their ids, when the caller has them already)."""
    from games.social.ignores import ignored_ids

    if ignored is None:
        ignored = ignored_ids(user=viewer) if viewer is not None else frozenset()
    rows = (
        ChatMessage.objects.filter(table_id=table_id, deleted_at__isnull=True)
        .exclude(user_id__in=ignored)
        .select_related("user")
        .order_by("-id")[:RECENT_LINES]
    )
    return [ChatLine.of(m) for m in reversed(rows)]
