"""Staff tools: the ledger and the bans read-only, the staff log, groups; users in user_admin.py.

Every change to chips or bans goes through ``accounts.services``, which checks the staff member's
permission for it, records who did it and why, and can never write a balance directly.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.models import Group
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import user_admin  # noqa: F401 (registers the users' page: Django imports only admin.py)
from accounts.admin_filters import player_filter, table_filter
from accounts.admin_paging import GrowingListAdmin
from accounts.models import Ban, LedgerAccount, LedgerEntry, LedgerTransaction, StaffAction
from accounts.staff_pages import table_page


class ReadOnlyAdmin(GrowingListAdmin):
    """The ledger is written only by the services: staff may look, never add, change or delete.

    Its lists (entries, transactions, stored hands, events) grow with play: no full counts."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Ban)
class BanAdmin(ReadOnlyAdmin):
    """History of bans; bans are made and lifted from the users list or a user's page."""

    list_display = ["user", "reason", "staff_user", "created_at", "lifted_at", "lifted_by", "lift_reason"]
    list_filter = [("lifted_at", admin.EmptyFieldListFilter)]
    list_select_related = ["user", "staff_user", "lifted_by"]
    search_fields = ["user__username", "reason", "lift_reason"]


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    fields = ["account", "amount"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(LedgerAccount)
class LedgerAccountAdmin(ReadOnlyAdmin):
    list_display = ["key", "kind", "user", "table_id", "balance", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["user"]
    search_fields = ["key", "user__username"]


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ["pk", "created_at", "kind", "amount", "memo", "created_by", "idempotency_key"]
    list_filter = ["kind"]
    list_select_related = ["created_by"]
    search_fields = ["idempotency_key", "memo", "created_by__username"]
    inlines = [LedgerEntryInline]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["pk", "transaction", "account", "amount"]
    # An account names its owner.
    list_select_related = ["transaction", "account__user"]
    search_fields = ["account__key", "transaction__idempotency_key"]


@admin.register(StaffAction)
class StaffActionAdmin(ReadOnlyAdmin):
    """The one log of staff actions: read-only, searchable, filtered by player or table."""

    list_display = ["created_at", "kind", "staff_user", "on_user", "on_table", "reason", "details"]
    list_filter = ["kind", player_filter("user"), table_filter("table_id"), "created_at"]
    list_select_related = ["staff_user", "user"]
    search_fields = ["staff_user__username", "user__username", "user__email", "reason"]
    date_hierarchy = "created_at"
    fields = ["created_at", "kind", "staff_user", "user", "table_id", "reason", "detail"]

    @admin.display(description=gettext_lazy("player"), ordering="user__username")
    def on_user(self, action: StaffAction) -> str:
        if action.user_id is None:
            return "-"
        url = reverse("admin:accounts_user_change", args=[action.user_id])
        return format_html('<a href="{}">{}</a>', url, action.user.get_username())

    @admin.display(description=gettext_lazy("table"), ordering="table_id")
    def on_table(self, action: StaffAction) -> str:
        if action.table_id is None:
            return "-"
        url = table_page(action.table_id)  # the games app registers its table page
        if url is None:
            return f"#{action.table_id}"
        return format_html('<a href="{}">#{}</a>', url, action.table_id)

    @admin.display(description=gettext_lazy("details"))
    def details(self, action: StaffAction) -> str:
        parts = [f"{key}: {value}" for key, value in sorted(action.detail.items())]
        if action.ledger_transaction_id:
            parts.append(_("transaction #%(number)s") % {"number": action.ledger_transaction_id})
        return "; ".join(parts) or "-"


admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    """Groups hold permissions: giving one's own group a right is giving it to oneself."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser
