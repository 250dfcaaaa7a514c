"""Staff pages for tables: tables, seats, stored hands and what happened at each table.

Closing a table and removing a player each need their own permission, ask for a reason, confirm,
and go through games.live.staff, which checks the permission again, records who did it and why,
and tells the table. A table's stake, seats and dark play are fixed while anyone sits there.
"""

from __future__ import annotations

import re

from asgiref.sync import async_to_sync
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.admin import ReadOnlyAdmin
from accounts.admin_filters import player_filter, table_filter
from accounts.admin_paging import GrowingListAdmin
from accounts.forms import StaffForm
from accounts.services import may
from accounts.staff_log.log import action_of_token, already_done
from accounts.staff_pages import (
    PlayerLink,
    add_player_links,
    set_table_page,
    staff_action_page,
    staff_log_link,
)
from games import staff_kinds
from games.live import staff
from games.models import HandPlayer, PlayedHand, Seat, Table, TableEvent
from games.oversight.player_picture import ledger_kinds, player_picture

# Reports and the chat have their staff pages beside the players' report forms; importing them
# here registers them with the admin (which looks only for games.admin).
from games.reports import admin as reports_admin  # noqa: F401
from games.tournaments import admin as tournaments_admin  # noqa: F401


class TableReasonForm(StaffForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy(
            "Shown at the table to its players, and recorded with your name in the staff log."
        ),
    )


def table_link(table_id: int, text: object) -> str:
    return format_html('<a href="{}">{}</a>', reverse("admin:games_table_change", args=[table_id]), text)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "user", "sitting_out", "joined_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class TableAdminForm(forms.ModelForm):
    class Meta:
        model = Table
        fields = "__all__"

    def clean(self):
        data = super().clean()
        if self.instance.pk is not None:
            # The page showed these editable (nobody sat there then); someone may have sat down since.
            locked = [field for field in self.changed_data if field in staff.LOCKED_WHILE_SEATED]
            try:
                staff.check_table_change(table_id=self.instance.pk, changes={f: data[f] for f in locked})
            except staff.Refused as exc:
                raise forms.ValidationError(str(exc)) from None
        return data


def _their_rows(model: str) -> PlayerLink:
    """A button to the games app's list of ``model`` rows, filtered to the player."""
    return PlayerLink(
        url=lambda user_id: f"{reverse(f'admin:games_{model}_changelist')}?player={user_id}",
        label=_ROW_LABELS[model],
        permission=f"games.view_{model}",
    )


_ROW_LABELS = {
    "playedhand": gettext_lazy("Hands played"),
    "seat": gettext_lazy("Seats"),
    "tableevent": gettext_lazy("At tables"),
}

# The accounts app's pages link to these (accounts knows no page of games): a player's whole
# picture and what they did at tables, and a table's page from the staff log.
add_player_links(
    PlayerLink(
        url=lambda user_id: reverse("admin:games_player_picture", args=[user_id]),
        label=gettext_lazy("The whole picture"),
        first=True,
    ),
    *(_their_rows(model) for model in _ROW_LABELS),
)
set_table_page(lambda table_id: reverse("admin:games_table_change", args=[table_id]))


# Sent with a table's form when the page showed the stake, the seats and dark play editable.
SETTINGS_EDITABLE = "_settings_editable"


@admin.register(Table)
class TableAdmin(GrowingListAdmin):
    form = TableAdminForm
    list_display = (
        "id",
        "name",
        "stake",
        "seat_count",
        "dark_play",
        "private",
        "kind",
        "status",
        "hands_started",
    )
    list_filter = ("status", "stake", "private", "kind")
    search_fields = ("=id", "name")
    inlines = [SeatInline]
    actions = ["close_tables"]
    # The kind decides where the chips come from (games.kinds): chosen once, never changed.
    ALWAYS_READ_ONLY = ("invite_code", "status", "kind", "hands_started", "created_at", "created_by")

    def settings_editable(self, request: HttpRequest, obj: Table | None) -> bool:
        """Whether the form has the stake, the seats and dark play. A page shows them only while
        nobody sits at the table; a form sent from such a page keeps them, so a change made after
        someone sat down is refused with a message (TableAdminForm) rather than dropped unseen."""
        if obj is None:
            return True
        if request.method == "POST":
            return SETTINGS_EDITABLE in request.POST
        return not Seat.objects.filter(table=obj).exists()

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        if not self.settings_editable(request, obj):
            return (*self.ALWAYS_READ_ONLY, *staff.LOCKED_WHILE_SEATED)
        return self.ALWAYS_READ_ONLY

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # closing keeps the history; deleting would lose stored hands

    def has_close_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=staff_kinds.TABLE_CLOSE)

    def save_model(self, request: HttpRequest, obj: Table, form, change: bool) -> None:
        if not change:
            super().save_model(request, obj, form, change)
            return
        changes = {field: form.cleaned_data[field] for field in form.changed_data if field in staff.EDITABLE}
        # Through the service, which checks again under a lock. The admin's own transaction is
        # still open: the table in play follows once it is committed.
        try:
            table, changed = staff.change_table_in_db(
                table_id=obj.pk, staff_user=request.user, changes=changes
            )
        except staff.Refused as exc:
            request._table_refused = str(exc)  # someone sat down meanwhile: nothing was saved
            return
        new = {field: getattr(table, field) for field in changed}
        transaction.on_commit(lambda: async_to_sync(staff.table_follow_settings)(table_id=obj.pk, new=new))

    def log_change(self, request: HttpRequest, obj, message):
        if not getattr(request, "_table_refused", None):
            return super().log_change(request, obj, message)
        return None

    def response_change(self, request: HttpRequest, obj: Table) -> HttpResponse:
        refused = getattr(request, "_table_refused", None)
        if refused:
            self.message_user(request, refused, messages.ERROR)
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        table = Table.objects.filter(pk=object_id).first() if object_id.isdigit() else None
        links = []
        if table is not None:
            query = f"?table={table.pk}"
            links = [
                (reverse("admin:games_tableevent_changelist") + query, _("What happened here")),
                (reverse("admin:games_playedhand_changelist") + query, _("Hands played")),
                (reverse("admin:games_seat_changelist") + query, _("Seats")),
            ]
            if request.user.has_perm("accounts.view_staffaction"):
                links.append((staff_log_link(table_id=table.pk), _("Staff actions on this table")))
        extra = {
            **(extra_context or {}),
            "staff_links": links,
            "settings_editable": table is not None and self.settings_editable(request, table),
        }
        return super().change_view(request, object_id, form_url, extra)

    @admin.action(
        description=gettext_lazy("Close selected tables (cancels the hand in play, cashes everyone out)"),
        permissions=["close"],
    )
    def close_tables(self, request: HttpRequest, queryset) -> HttpResponse | None:
        open_tables = list(queryset.filter(status=Table.Status.OPEN))
        form = TableReasonForm(request.POST if "apply" in request.POST else None)
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Close tables"),
            intro=_(
                "The hand in play is cancelled (every seat gets back what it had when it began), "
                "everyone is cashed out to their wallet, and the table closes for good."
            ),
            targets=open_tables or [_("Nothing to do: none of the selected is open.")],
            summary=lambda data: [_("Close %(table)s.") % {"table": table} for table in open_tables],
            submit=_("Close the tables"),
            action="close_tables",
            selected=queryset,
        )
        if page is not None:
            return page
        token = form.cleaned_data["token"]
        for table in queryset.exclude(pk__in=[t.pk for t in open_tables]):
            done = action_of_token(f"{token}:{table.pk}")  # this very form closed it: say so
            if done is not None:
                refusal = str(already_done(done))
            else:
                refusal = _("%(table)s is closed already; nothing was changed.") % {"table": table}
            self.message_user(request, refusal, messages.WARNING)
        for table in open_tables:
            try:
                async_to_sync(staff.table_close)(
                    table_id=table.pk,
                    staff_user=request.user,
                    reason=form.cleaned_data["reason"],
                    token=f"{token}:{table.pk}",
                )
            except staff.Refused as exc:
                self.message_user(request, f"{table}: {exc}", messages.WARNING)
            else:
                self.message_user(request, _("%(table)s is closed.") % {"table": table}, messages.SUCCESS)
        return None


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "position", "user", "sitting_out", "joined_at")
    list_filter = (table_filter("table_id"), player_filter("user"), "sitting_out")
    list_select_related = ("table", "user")
    search_fields = ("=table__id", "table__name", "user__username")
    actions = ["remove_players"]

    def has_remove_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=staff_kinds.SEAT_REMOVE)

    @admin.action(
        description=gettext_lazy("Remove selected players from their seats (asks for a reason)"),
        permissions=["remove"],
    )
    def remove_players(self, request: HttpRequest, queryset) -> HttpResponse | None:
        seats = list(queryset.select_related("table", "user"))
        form = TableReasonForm(request.POST if "apply" in request.POST else None)
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Remove players"),
            intro=_(
                "Each player's hand in play is folded, their chips go back to their wallet, and the "
                "table is told why: the player and the others there see the reason."
            ),
            targets=seats,
            summary=lambda data: [
                _("Remove %(user)s from %(table)s.") % {"user": seat.user, "table": seat.table}
                for seat in seats
            ],
            submit=_("Remove the players"),
            action="remove_players",
            selected=queryset,
        )
        if page is not None:
            return page
        for seat in seats:
            try:
                async_to_sync(staff.seat_remove)(
                    table_id=seat.table_id,
                    user=seat.user,
                    staff_user=request.user,
                    reason=form.cleaned_data["reason"],
                    token=f"{form.cleaned_data['token']}:{seat.pk}",
                )
            except staff.Refused as exc:
                self.message_user(request, f"{seat}: {exc}", messages.WARNING)
            else:
                self.message_user(
                    request,
                    _("%(user)s is removed from %(table)s.") % {"user": seat.user, "table": seat.table},
                    messages.SUCCESS,
                )
        return None


class HandPlayerInline(admin.TabularInline):
    model = HandPlayer
    extra = 0
    readonly_fields = ("user", "position", "chips_before", "chips_after", "won")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# "12-3" or "12/3": hand 3 at table 12 (a hand's id in its file is "<table>-<number>").
HAND_ID = re.compile(r"^#?(\d{1,10})\s*[-/]\s*(\d{1,10})$")


@admin.register(PlayedHand)
class PlayedHandAdmin(ReadOnlyAdmin):
    list_display = (
        "hand_id",
        "table",
        "number",
        "status",
        "started_at",
        "ended_at",
        "pot",
        "winner",
        "replay",
    )
    list_filter = (table_filter("table_id"), player_filter("players__user"), "status", "started_at")
    list_select_related = ("table", "winner")
    # No date_hierarchy: its links list the distinct days of every hand, a scan of them all on each
    # page; the date filter (today, the past 7 days, this month, this year) is a range the index serves.
    search_fields = ("table__name", "winner__username")
    search_help_text = gettext_lazy(
        "A table's name, a winner's name, a number (a table's or a hand's), or table-hand such as 12-3."
    )
    inlines = [HandPlayerInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # The hand file and the seeds are long and shown only on a hand's own page.
        return super().get_queryset(request).defer("record", "server_seed", "client_seeds")

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str):
        term = search_term.strip()
        hand = HAND_ID.match(term)
        if hand:
            return queryset.filter(table_id=int(hand[1]), number=int(hand[2])), False
        if term.lstrip("#").isdigit() and len(term) <= 11:
            number = int(term.lstrip("#"))
            return queryset.filter(Q(table_id=number) | Q(number=number)), False
        return super().get_search_results(request, queryset, search_term)

    def get_urls(self):
        picture = path(
            "player/<int:user_id>/", self.admin_site.admin_view(self.player_view), name="games_player_picture"
        )
        return [picture, *super().get_urls()]

    def player_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """A player's whole picture (games.oversight.player_picture): what staff look at in a dispute."""
        if not request.user.has_perm("accounts.view_user"):
            raise PermissionDenied
        picture = player_picture(user_id=user_id, ledger_kind=request.GET.get("kind", ""))
        if picture is None:
            message = _("There is no player #%(number)s; nothing was changed.") % {"number": user_id}
            self.message_user(request, message, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:accounts_user_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("The whole picture of %(user)s") % {"user": picture.user},
            "picture": picture,
            "kinds": ledger_kinds(),
            "staff_log": staff_log_link(user=picture.user),
        }
        return TemplateResponse(request, "games/admin/player.html", context)

    @admin.display(description=gettext_lazy("hand"))
    def hand_id(self, hand: PlayedHand) -> str:
        return f"{hand.table_id}-{hand.number}"

    @admin.display(description=gettext_lazy("replay"))
    def replay(self, hand: PlayedHand) -> str:
        if hand.status == PlayedHand.Status.IN_PLAY:
            return "-"  # a hand in play holds every deck: not shown until it ends
        return format_html('<a href="{}">{}</a>', reverse("hand_replay", args=[hand.pk]), _("Replay"))

    def get_fields(self, request: HttpRequest, obj=None):
        fields = ("table", "number", "status", "started_at", "ended_at", "pot", "winner", "server_seed_hash")
        # The file holds the seed and every deck: staff see it, as anyone, once its series is revealed.
        return (*fields, "record" if obj is None or obj.revealed else "sealed")

    @admin.display(description=gettext_lazy("record"))
    def sealed(self, hand: PlayedHand) -> str:
        return _("Sealed until the hand's seed series ends: its seed and decks stay secret until then.")


@admin.register(TableEvent)
class TableEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "on_table", "kind", "user", "amount", "hand_number", "staff_user", "reason")
    list_filter = (table_filter("table_id"), player_filter("user"), "kind", "created_at")
    list_select_related = ("table", "user", "staff_user")
    search_fields = ("=table__id", "table__name", "user__username", "staff_user__username", "reason")
    # No date_hierarchy, as for hands: the date filter does without a scan of every event.

    @admin.display(description=gettext_lazy("table"), ordering="table_id")
    def on_table(self, event: TableEvent) -> str:
        return table_link(event.table_id, event.table)
