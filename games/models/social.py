"""Chat messages, the staff's word filter and chat mutes, ignore lists and players' reports.

Imported by games/models/__init__.py, which registers them with the games app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# A message is short: a line of table talk, not a letter (the 200 characters).
MESSAGE_MAX_LENGTH = 200
REPORT_TEXT_MAX_LENGTH = 500


class ChatMode(models.TextChoices):
    """Who may talk at a table (Table.chat)."""

    EVERYONE = "everyone", _("everyone (players and spectators)")
    PLAYERS = "players", _("players only")
    OFF = "off", _("off")


class ChatMessage(models.Model):
    """One line said at a table; kept for moderation (who, where, in which hand, what, when).

    A deleted message keeps its row (the report that named it still shows what was said) but is
    shown to nobody.
    """

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="chat_messages"
    )
    # The table's hand count when it was said: which hand the talk was about.
    hand_number = models.PositiveIntegerField(default=0, verbose_name=_("hand"))
    text = models.CharField(max_length=MESSAGE_MAX_LENGTH, verbose_name=_("message"))
    # A quick phrase's key ("gl"): shown in each reader's language; ``text`` keeps its English.
    phrase = models.CharField(
        max_length=12, blank=True, default="", db_default="", verbose_name=_("quick phrase")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("when"))
    deleted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("deleted"))
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-pk"]
        indexes = [
            # Whoever opens a table reads its last 50 lines, newest first.
            models.Index(fields=["table", "-id"], name="chat_table_recent"),
            # Staff read a player's lines, newest first.
            models.Index(fields=["user", "-id"], name="chat_user_recent"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} at table {self.table_id}"


class ChatWord(models.Model):
    """A word the chat filter masks, in either language; the staff keep the list in the admin."""

    word = models.CharField(max_length=40, unique=True, verbose_name=_("word"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("added"))

    class Meta:
        verbose_name = _("filtered word")
        verbose_name_plural = _("filtered words")
        ordering = ["word"]

    def __str__(self) -> str:
        return self.word


class ChatMute(models.Model):
    """A player kept out of the chat until a time, by a staff member (recorded as a StaffAction)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_mutes",
        verbose_name=_("player"),
    )
    until = models.DateTimeField(verbose_name=_("until"))
    reason = models.TextField(verbose_name=_("reason"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("when"))

    class Meta:
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "-until"], name="chatmute_user_until")]

    def __str__(self) -> str:
        return f"{self.user_id} muted until {self.until:%Y-%m-%d %H:%M}"


class Ignore(models.Model):
    """``user`` does not see ``ignored``'s messages, at any table; ``ignored`` is not told."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ignoring")
    ignored = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "ignored"], name="ignore_once"),
            models.CheckConstraint(condition=~Q(user=F("ignored")), name="ignore_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} ignores {self.ignored_id}"


class Report(models.Model):
    """A player's complaint about another player or one of their messages, for the staff."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("abuse or insults")
        SPAM = "spam", _("spam or flooding")
        CHEATING = "cheating", _("cheating or collusion")
        NAME = "name", _("offensive name")
        OTHER = "other", _("something else")

    class Status(models.TextChoices):
        OPEN = "open", _("waiting")
        CLOSED = "closed", _("dealt with")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="reports_made",
        verbose_name=_("reported by"),
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_against",
        verbose_name=_("player"),
    )
    message = models.ForeignKey(
        ChatMessage,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports",
        verbose_name=_("message"),
    )
    # Where it happened (the message's table, or the table the player was reported from).
    table = models.ForeignKey(
        "games.Table",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("table"),
    )
    reason = models.CharField(max_length=10, choices=Reason.choices, verbose_name=_("reason"))
    text = models.TextField(max_length=REPORT_TEXT_MAX_LENGTH, blank=True, verbose_name=_("details"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("when"))
    status = models.CharField(
        max_length=6, choices=Status.choices, default=Status.OPEN, verbose_name=_("status")
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("dealt with by"),
    )
    handled_at = models.DateTimeField(null=True, blank=True, verbose_name=_("dealt with"))
    outcome = models.TextField(blank=True, verbose_name=_("outcome"))

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(reporter=F("reported")), name="report_not_oneself"),
        ]
        indexes = [
            # The staff's queue (waiting ones, oldest first) and the count on the dashboard.
            models.Index(fields=["status", "created_at"], name="report_queue"),
            models.Index(fields=["reported", "-created_at"], name="report_against_recent"),
        ]

    def __str__(self) -> str:
        return f"report #{self.pk} on {self.reported_id}"


class Friendship(models.Model):
    """One row per pair of players, whatever its state: a request one of them sent (``pending``),
    or a friendship (``friends``). The pair is kept lowest id first, so "both send a request at
    once" meets the same unique row and a friendship is symmetric by construction
    (games/social/friends.py)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("request sent")
        FRIENDS = "friends", _("friends")

    low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Who asked: one of the pair (the other accepts or declines).
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["low", "high"], name="friendship_once_per_pair"),
            models.CheckConstraint(condition=Q(low__lt=F("high")), name="friendship_low_first"),
            models.CheckConstraint(
                condition=Q(requested_by=F("low")) | Q(requested_by=F("high")),
                name="friendship_asked_by_one_of_the_pair",
            ),
        ]
        indexes = [models.Index(fields=["high", "status"], name="friendship_high_status")]

    def __str__(self) -> str:
        return f"{self.low_id} & {self.high_id}: {self.status}"

    def other(self, user_id: int) -> int:
        return self.high_id if user_id == self.low_id else self.low_id


class TableInvitation(models.Model):
    """A friend asked to come to a table the sender sits at; shown to the recipient until they
    open or dismiss it, or it is too old (games/social/friends.py, ``INVITATION_LIFETIME``)."""

    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_invitations"
    )
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        # The recipient's notices: their invitations not dismissed, newest first.
        indexes = [models.Index(fields=["recipient", "-created_at"], name="invitation_recipient_recent")]

    def __str__(self) -> str:
        return f"{self.sender_id} invites {self.recipient_id} to {self.table_id}"
