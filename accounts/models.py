"""Users, bans and the double-entry chip ledger.

Balances are only ever changed by ``accounts.services`` (see ledger.py there); the models hold the
invariants the database itself can enforce: a non-house balance is never negative, and each
account kind has the owner fields it needs.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.faces import FACE_CHOICES
from accounts.staff_log.kinds import kind_choices
from accounts.usernames import username_skeleton


class User(AbstractUser):
    """The room's user. Custom from the first migration so fields can be added later."""

    # The computer's accounts (made by a migration, accounts.services.computer) carry their level:
    # the practice tables find the computer by it, never by a username somebody could register.
    computer_level = models.CharField(max_length=10, blank=True, default="", editable=False)
    # What the username looks like (accounts.usernames.username_skeleton): sign-up refuses a name
    # that looks like one already taken. Kept in step by save().
    username_skeleton = models.TextField(default="", editable=False, db_index=True)
    # The player's page then shows others only the name and the date of joining, and the
    # leaderboards leave the player out.
    stats_hidden = models.BooleanField(default=False)
    # Responsible play: minutes between reality checks on the pages (0: off). A database default
    # too: the benchmarks COPY users naming only the columns they know.
    reality_check_minutes = models.PositiveSmallIntegerField(default=0, db_default=0)
    # The face the player chose from those the room ships (accounts/faces.py; "": none, the seat
    # shows the name's first letter). A database default for the same reason as above.
    face = models.CharField(max_length=16, blank=True, default="", db_default="", choices=FACE_CHOICES)

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]  # django-stubs declares no Meta
        constraints = [
            models.UniqueConstraint(
                fields=["computer_level"], condition=~Q(computer_level=""), name="user_one_computer_per_level"
            ),
        ]

    def save(self, *args, **kwargs) -> None:
        self.username_skeleton = username_skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_skeleton"}
        super().save(*args, **kwargs)


class Ban(models.Model):
    """A staff decision that a user may not log in or sit at a table, kept after it is lifted."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bans")
    reason = models.TextField()
    staff_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="bans_made",
    )
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="bans_lifted",
    )
    lift_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["-created_at", "-id"], name="ban_recent")]
        # Banning is "add ban"; lifting is its own right, so a moderator can ban without undoing bans.
        permissions = [("lift_ban", "Can lift a ban")]
        constraints = [
            # One active ban per user: banning twice would make lifting ambiguous.
            models.UniqueConstraint(
                fields=["user"], condition=Q(lifted_at__isnull=True), name="ban_one_active_per_user"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="ban_reason_required"),
        ]

    def __str__(self) -> str:
        state = "lifted" if self.lifted_at else "active"
        return f"Ban of {self.user} ({state})"

    @property
    def is_active(self) -> bool:
        return self.lifted_at is None


class LedgerAccount(models.Model):
    """Where chips sit: the house (source of grants), a user's wallet, a user's seat at a table, or
    a sit-and-go's prize pool (its buy-ins until the prizes are paid)."""

    class Kind(models.TextChoices):
        HOUSE = "house", "house"
        WALLET = "wallet", "wallet"
        SEAT = "seat", "seat"
        POOL = "pool", "prize pool"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_accounts",
    )
    # A plain integer, not a foreign key: the ledger must not depend on the games app.
    table_id = models.PositiveIntegerField(null=True, blank=True)
    # The same for a prize pool's tournament.
    tournament_id = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=64, unique=True)
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        permissions = [("adjust_wallet", "Can adjust a user's wallet from the admin")]
        constraints = [
            # The house may go negative: its balance is minus all chips ever granted.
            models.CheckConstraint(
                condition=Q(balance__gte=0) | Q(kind="house"), name="ledger_account_balance_non_negative"
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="house", user__isnull=True, table_id__isnull=True, tournament_id__isnull=True)
                    | Q(kind="wallet", user__isnull=False, table_id__isnull=True, tournament_id__isnull=True)
                    | Q(kind="seat", user__isnull=False, table_id__isnull=False, tournament_id__isnull=True)
                    | Q(kind="pool", user__isnull=True, table_id__isnull=True, tournament_id__isnull=False)
                ),
                name="ledger_account_owner_matches_kind",
            ),
        ]

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """A phrase for messages a person reads."""
        if self.kind == self.Kind.HOUSE:
            return "the house"
        if self.kind == self.Kind.WALLET:
            return f"the wallet of {self.user}"
        if self.kind == self.Kind.POOL:
            return f"the prize pool of tournament {self.tournament_id}"
        return f"the seat of {self.user} at table {self.table_id}"


class LedgerTransaction(models.Model):
    """One movement of chips: its entries sum to zero."""

    class Kind(models.TextChoices):
        SIGNUP_BONUS = "signup_bonus", "sign-up bonus"
        DAILY_BONUS = "daily_bonus", "daily bonus"
        REFILL = "refill", "refill"
        ADJUST = "adjust", "staff adjustment"
        BUY_IN = "buy_in", "buy-in"
        CASH_OUT = "cash_out", "cash-out"
        HAND_SETTLE = "hand_settle", "hand settled"
        # Sit-and-go tournaments (RULES.md §8): a buy-in into the prize pool, a buy-in back
        # (unregistered, or cancelled by staff), the prizes paid out.
        TOURNAMENT_BUY_IN = "sng_buy_in", "tournament buy-in"
        TOURNAMENT_REFUND = "sng_refund", "tournament refund"
        TOURNAMENT_PRIZES = "sng_prizes", "tournament prizes"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    memo = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="ledger_transactions",
    )
    idempotency_key = models.CharField(max_length=200, unique=True)
    # What was asked for (kind and arguments), hashed: a repeated key with other content is refused.
    fingerprint = models.CharField(max_length=64)
    # Chips moved: the sum of the positive entries.
    amount = models.BigIntegerField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} {self.amount}"


class LedgerEntry(models.Model):
    """One account's share of a transaction: positive = chips in, negative = chips out."""

    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(LedgerAccount, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()
    # The account's owner and the transaction's time, copied when the entry is posted: a player's
    # chip history is then read from one index in its order instead of sorting all their entries
    # through two joins. Null owner: the house.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "ledger entries"  # not "entrys"
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["transaction", "account"], name="ledger_entry_one_per_account"),
        ]
        indexes = [models.Index(fields=["owner", "-created_at", "-id"], name="ledgerentry_owner_recent")]

    def __str__(self) -> str:
        return f"{self.account.key} {self.amount:+d}"


class StaffAction(models.Model):
    """The room's one audit log: each thing a staff member did, who, when, on whom and why.

    Written only by the services that do the action, in the same transaction; never changed after.
    ``token`` names the form that asked for it, so a form submitted twice acts (and is logged) once.
    """

    created_at = models.DateTimeField(default=timezone.now, db_index=True, verbose_name=_("when"))
    staff_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="staff_actions_made",
        verbose_name=_("staff member"),
    )
    # What was done: a kind its part registered (accounts.staff_log.kinds), so the log names no
    # other app's actions; the choices are read when they are used, every part loaded.
    kind = models.CharField(max_length=16, choices=kind_choices, verbose_name=_("what"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="staff_actions",
        verbose_name=_("player"),
    )
    # A plain integer, like the ledger's: accounts must not depend on the games app.
    table_id = models.PositiveIntegerField(null=True, blank=True, db_index=True, verbose_name=_("table"))
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    detail = models.JSONField(default=dict, blank=True, verbose_name=_("details"))
    ledger_transaction = models.ForeignKey(
        LedgerTransaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("ledger transaction"),
    )
    token = models.CharField(max_length=100, unique=True, null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("staff action")
        verbose_name_plural = _("staff actions")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"


class SignIn(models.Model):
    """A login: who, from which address, when. Staff look up the accounts behind one address."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_ins", verbose_name=_("player")
    )
    # None when the server did not know it (a test client, a socket without a peer).
    address = models.GenericIPAddressField(null=True, blank=True, db_index=True, verbose_name=_("address"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("when"))

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["user", "-at"], name="signin_user_recent")]
        verbose_name = _("sign-in")
        verbose_name_plural = _("sign-ins")

    def __str__(self) -> str:
        return f"{self.user} from {self.address}"


class PlayBreak(models.Model):
    """A player's own break from play (responsible play): a time-out or a self-exclusion.

    Kept after it ends. The player cannot end one early; only a superuser can, with a reason
    (``lifted_*``, logged in the staff log)."""

    class Kind(models.TextChoices):
        TIME_OUT = "time_out", _("time-out")
        SELF_EXCLUSION = "self_exclusion", _("self-exclusion")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="play_breaks",
        verbose_name=_("player"),
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    started_at = models.DateTimeField(default=timezone.now, verbose_name=_("from"))
    ends_at = models.DateTimeField(verbose_name=_("until"))
    lifted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("lifted"))
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("lifted by"),
    )
    lift_reason = models.TextField(blank=True, verbose_name=_("reason for lifting"))

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["user", "-ends_at"], name="playbreak_user_ends")]
        verbose_name = _("break from play")
        verbose_name_plural = _("breaks from play")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.user} until {self.ends_at:%Y-%m-%d %H:%M}"


class LossLimit(models.Model):
    """A player's loss limit for one period (responsible play, docs/playing.md).

    ``amount`` applies now (None: no limit). A raise or a removal waits 24 hours in ``next_amount``
    and ``next_at`` (None: nothing waiting); a lowering applies at once and cancels what waits. The
    rows of a player are also what their buy-ins lock, so two at once cannot both fit."""

    class Period(models.TextChoices):
        DAY = "day", _("day")
        WEEK = "week", _("week")
        MONTH = "month", _("month")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="loss_limits",
        verbose_name=_("player"),
    )
    period = models.CharField(max_length=8, choices=Period.choices, verbose_name=_("period"))
    amount = models.PositiveBigIntegerField(null=True, blank=True, verbose_name=_("limit"))
    next_amount = models.PositiveBigIntegerField(null=True, blank=True, verbose_name=_("next limit"))
    next_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next limit from"))
    changed_at = models.DateTimeField(default=timezone.now, verbose_name=_("changed"))

    class Meta:
        ordering = ["user", "period"]
        constraints = [models.UniqueConstraint(fields=["user", "period"], name="losslimit_one_per_period")]
        verbose_name = _("loss limit")
        verbose_name_plural = _("loss limits")

    def __str__(self) -> str:
        return f"{self.period} loss limit of {self.user}: {self.amount}"

    def amount_at(self, now: datetime) -> int | None:
        """The limit in force at ``now``: what waits once its 24 hours are over."""
        if self.next_at is not None and self.next_at <= now:
            return self.next_amount
        return self.amount


class PlayTimeLimit(models.Model):
    """A player's daily play-time limit in minutes (responsible play): once reached, the tables deal
    them no new hand until the next day (the hand in play finishes). Raising or removing it waits
    24 hours, as for a loss limit."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="play_time_limit",
        verbose_name=_("player"),
    )
    minutes = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("minutes a day"))
    next_minutes = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("next limit"))
    next_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next limit from"))
    changed_at = models.DateTimeField(default=timezone.now, verbose_name=_("changed"))

    class Meta:
        verbose_name = _("play-time limit")
        verbose_name_plural = _("play-time limits")

    def __str__(self) -> str:
        return f"play-time limit of {self.user}: {self.minutes} minutes"

    def minutes_at(self, now: datetime) -> int | None:
        if self.next_at is not None and self.next_at <= now:
            return self.next_minutes
        return self.minutes
