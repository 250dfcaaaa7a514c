"""Sit-and-go tournaments (RULES.md §8): a tournament and its entries.

Imported by games/models/__init__.py, which registers them with the games app. Chips never sit
here: buy-ins and prizes live in the ledger (the tournament's prize pool, accounts.services.
prize_pools); these rows say who registered, where they sat and how they placed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from games.engine.tournament import BUY_INS, FORMATS, LEVEL_SECONDS, SEATS


class Tournament(models.Model):
    """One sit-and-go: open for registration, running, finished or cancelled."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("tournament", "registering")
        RUNNING = "running", pgettext_lazy("tournament", "running")
        FINISHED = "finished", pgettext_lazy("tournament", "finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament", "cancelled")

    # The format (games.engine.tournament.SitAndGo), by its key and spelt out for the lists' queries.
    format_key = models.CharField(max_length=16, choices=[(f.key, f.key) for f in FORMATS])
    seats = models.PositiveSmallIntegerField(choices=[(s, f"{s}") for s in SEATS])
    speed = models.CharField(max_length=8, choices=[(s, s) for s in LEVEL_SECONDS])
    buy_in = models.PositiveIntegerField(choices=[(b, f"{b}") for b in BUY_INS])
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # The table it is played at, from the start on.
    table = models.OneToOneField(
        "games.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="tournament"
    )
    cancel_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-pk"]
        permissions = [("cancel_tournament", "Can cancel a tournament (its chips go back by RULES.md §8)")]
        constraints = [
            # The lobby always offers one sit-and-go of each format: never two (RULES.md §8).
            models.UniqueConstraint(
                fields=["format_key"], condition=Q(status="open"), name="tournament_one_open_per_format"
            ),
        ]
        indexes = [models.Index(fields=["status", "-ended_at"], name="tournament_status_recent")]

    def __str__(self) -> str:
        return f"sit-and-go #{self.pk} ({self.format_key}, {self.status})"


class Entry(models.Model):
    """A player's registration: from registering to their place. An unregistered entry keeps its
    row (the ledger's refund names it); a player may register again, as a new entry."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    registered_at = models.DateTimeField(default=timezone.now)
    unregistered_at = models.DateTimeField(null=True, blank=True)
    # Drawn at random when the tournament starts (RULES.md §8: "seats players at random").
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # When it ends: the place (shared places give each player the best of them), the prize, and
    # the hand number in which the player went out (null for the winner).
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(null=True, blank=True)
    out_in_hand = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=Q(unregistered_at__isnull=True),
                name="entry_one_per_player",
            ),
            models.UniqueConstraint(
                fields=["tournament", "seat"], condition=Q(seat__isnull=False), name="entry_one_per_seat"
            ),
        ]
        indexes = [models.Index(fields=["user", "-registered_at"], name="entry_player_recent")]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"
