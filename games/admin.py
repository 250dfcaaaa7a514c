"""Staff pages for tables: tables, seats and stored hands; closing a table and removing a player
ask for a reason and go through games.live.staff, which records who did it and why."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.admin import ReadOnlyAdmin
from games.live import staff
from games.models import HandPlayer, PlayedHand, Seat, Table, TableEvent


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=1000)


def _ask_reason(modeladmin, request, queryset, *, action: str, title: str, items) -> HttpResponse | None:
    """Render the reason form; return None once a valid reason was posted (cleaned in request)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        request.staff_reason = form.cleaned_data["reason"]
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "items": items,
        "selected": queryset,
        "form": form,
        "action": action,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "games/admin/reason.html", context)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "user", "sitting_out", "joined_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "stake",
        "seat_count",
        "dark_play",
        "private",
        "practice",
        "status",
        "hands_started",
    )
    list_filter = ("status", "stake", "private", "practice")
    search_fields = ("name",)
    readonly_fields = ("invite_code", "status", "hands_started", "created_at", "created_by")
    inlines = [SeatInline]
    actions = ["close_tables"]

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # closing keeps the history; deleting would lose stored hands

    @admin.action(
        description=gettext_lazy("Close selected tables (cancels the hand in play, cashes everyone out)")
    )
    def close_tables(self, request: HttpRequest, queryset) -> HttpResponse | None:
        open_tables = queryset.filter(status=Table.Status.OPEN)
        response = _ask_reason(
            self, request, queryset, action="close_tables", title=_("Close tables"), items=list(open_tables)
        )
        if response is not None:
            return response
        for table in open_tables:
            try:
                async_to_sync(staff.table_close)(
                    table_id=table.pk, staff_user=request.user, reason=request.staff_reason
                )
            except staff.Refused as exc:
                self.message_user(request, f"{table}: {exc}", messages.WARNING)
            else:
                self.message_user(request, _("%(table)s is closed.") % {"table": table}, messages.SUCCESS)
        return None


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "position", "user", "sitting_out", "joined_at")
    list_filter = ("table",)
    actions = ["remove_players"]

    @admin.action(description=gettext_lazy("Remove selected players from their seats (asks for a reason)"))
    def remove_players(self, request: HttpRequest, queryset) -> HttpResponse | None:
        seats = list(queryset.select_related("table", "user"))
        response = _ask_reason(
            self, request, queryset, action="remove_players", title=_("Remove players"), items=seats
        )
        if response is not None:
            return response
        for seat in seats:
            try:
                async_to_sync(staff.seat_remove)(
                    table_id=seat.table_id,
                    user=seat.user,
                    staff_user=request.user,
                    reason=request.staff_reason,
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


@admin.register(PlayedHand)
class PlayedHandAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "status", "started_at", "ended_at", "pot", "winner")
    list_filter = ("status",)
    inlines = [HandPlayerInline]

    def get_fields(self, request: HttpRequest, obj=None):
        return (
            "table",
            "number",
            "status",
            "started_at",
            "ended_at",
            "pot",
            "winner",
            "server_seed_hash",
            "record",
        )


@admin.register(TableEvent)
class TableEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "kind", "user", "staff_user", "reason")
    list_filter = ("kind",)
