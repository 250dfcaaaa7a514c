"""The staff's side of tournaments, in the admin: the list of sit-and-gos (read-only) and cancelling
one with a reason (RULES.md §8's refunds), which goes through games.tournaments.service.cancel: it
checks the right again, moves the chips in one ledger transaction and writes the staff log."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.admin import ReadOnlyAdmin
from accounts.forms import StaffForm
from accounts.ledger.errors import LedgerError
from accounts.services import may
from accounts.staff_log.errors import StaffRefusal
from accounts.staff_pages import staff_action_page
from accounts.user_admin import ShownOnlyInline
from games import staff_kinds
from games.models import Entry, Tournament
from games.tournaments.service import TournamentRefused, cancel


class CancelForm(StaffForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy(
            "Shown on the tournament's page, and recorded with your name in the staff log."
        ),
    )


class EntryInline(ShownOnlyInline):
    """Entries change only through registration and the tournament's service."""

    model = Entry
    fields = ("user", "registered_at", "unregistered_at", "seat", "place", "prize")
    readonly_fields = fields


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("id", "format_key", "status", "created_at", "started_at", "ended_at")
    list_filter = ("status", "seats", "speed", "buy_in")
    inlines = [EntryInline]
    actions = ["cancel_tournaments"]

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=staff_kinds.TOURNAMENT_CANCEL)

    @admin.action(
        description=gettext_lazy("Cancel selected tournaments (buy-ins back, or the pool shared by chips)"),
        permissions=["cancel"],
    )
    def cancel_tournaments(self, request: HttpRequest, queryset) -> HttpResponse | None:
        live = list(queryset.filter(status__in=[Tournament.Status.OPEN, Tournament.Status.RUNNING]))
        form = CancelForm(request.POST if "apply" in request.POST else None)
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Cancel tournaments"),
            intro=_(
                "Before the start every buy-in goes back to its wallet; after it the prize pool is shared "
                "in proportion to the chips each player holds. The tournament ends for good."
            ),
            targets=live or [_("Nothing to do: none of the selected is registering or running.")],
            summary=lambda data: [_("Cancel %(tournament)s.") % {"tournament": t} for t in live],
            submit=_("Cancel the tournaments"),
            action="cancel_tournaments",
            selected=queryset,
        )
        if page is not None:
            return page
        token = form.cleaned_data["token"]
        for tournament in live:
            try:
                cancel(
                    tournament_id=tournament.pk,
                    staff_user=request.user,
                    reason=form.cleaned_data["reason"],
                    token=f"{token}:{tournament.pk}",
                )
            except (TournamentRefused, LedgerError, StaffRefusal) as exc:
                self.message_user(request, f"{tournament}: {exc}", messages.WARNING)
            else:
                self.message_user(
                    request, _("%(tournament)s is cancelled.") % {"tournament": tournament}, messages.SUCCESS
                )
        return None
