"""Staff tools: users with bans and wallet adjustments; the ledger itself is read-only here.

Every change to chips or bans goes through ``accounts.services``, so the admin records who did it
and can never write a balance directly.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.forms import BanForm, WalletAdjustForm
from accounts.models import Ban, LedgerAccount, LedgerEntry, LedgerTransaction, User
from accounts.services import LedgerError, ban_user, lift_ban, wallet_adjust


class ReadOnlyAdmin(admin.ModelAdmin):
    """The ledger is written only by the services: staff may look, never add, change or delete."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class BanInline(admin.TabularInline):
    model = Ban
    fk_name = "user"
    extra = 0
    fields = ["created_at", "reason", "staff_user", "lifted_at", "lifted_by"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ["username", "email", "wallet", "banned", "is_staff", "date_joined"]
    readonly_fields = ["chips"]
    inlines = [BanInline]
    actions = ["ban_users", "lift_bans"]
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Chips and bans", {"fields": ["chips"]}))

    def get_queryset(self, request: HttpRequest):
        balance = LedgerAccount.objects.filter(kind=LedgerAccount.Kind.WALLET, user=OuterRef("pk")).values(
            "balance"
        )
        active = Ban.objects.filter(user=OuterRef("pk"), lifted_at__isnull=True).values("pk")
        return (
            super().get_queryset(request).annotate(_wallet=Subquery(balance[:1]), _ban=Subquery(active[:1]))
        )

    @admin.display(description="wallet", ordering="_wallet")
    def wallet(self, user: User) -> int:
        return user._wallet or 0

    @admin.display(description="banned", boolean=True)
    def banned(self, user: User) -> bool:
        return user._ban is not None

    @admin.display(description="chips")
    def chips(self, user: User) -> str:
        if user.pk is None:
            return "-"
        return format_html(
            '{} in the wallet. <a href="{}">Adjust the wallet</a> · <a href="{}">Ban this user</a>',
            user._wallet or 0,
            reverse("admin:accounts_user_adjust_wallet", args=[user.pk]),
            reverse("admin:accounts_user_ban", args=[user.pk]),
        )

    def get_urls(self):
        extra = [
            path(
                "<int:user_id>/adjust-wallet/",
                self.admin_site.admin_view(self.adjust_wallet_view),
                name="accounts_user_adjust_wallet",
            ),
            path("<int:user_id>/ban/", self.admin_site.admin_view(self.ban_view), name="accounts_user_ban"),
        ]
        return extra + super().get_urls()

    # --- permissions: custom ones so they can be given to staff without "change user" ---

    def has_ban_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("accounts.add_ban")

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("accounts.adjust_wallet")

    # --- bans ---

    def _ban(self, request: HttpRequest, users, reason: str) -> None:
        for user in users:
            try:
                ban_user(user=user, reason=reason, staff_user=request.user)
            except LedgerError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, _("%(user)s is banned.") % {"user": user}, messages.SUCCESS)

    @admin.action(description=gettext_lazy("Ban selected users (asks for a reason)"), permissions=["ban"])
    def ban_users(self, request: HttpRequest, queryset) -> HttpResponse | None:
        form = BanForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            self._ban(request, queryset, form.cleaned_data["reason"])
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Ban users"),
            "users": queryset,
            "form": form,
            "action": "ban_users",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "accounts/admin/ban_users.html", context)

    @admin.action(description=gettext_lazy("Lift the bans of selected users"), permissions=["ban"])
    def lift_bans(self, request: HttpRequest, queryset) -> None:
        for user in queryset:
            try:
                lift_ban(user=user, staff_user=request.user)
            except LedgerError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(
                    request, _("The ban of %(user)s is lifted.") % {"user": user}, messages.SUCCESS
                )

    def ban_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        if not self.has_ban_permission(request):
            raise PermissionDenied
        user = get_object_or_404(User, pk=user_id)
        form = BanForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            self._ban(request, [user], form.cleaned_data["reason"])
            return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Ban %(user)s") % {"user": user},
            "users": [user],
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "accounts/admin/ban_users.html", context)

    # --- wallet ---

    def adjust_wallet_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        if not self.has_adjust_permission(request):
            raise PermissionDenied
        user = get_object_or_404(User, pk=user_id)
        form = WalletAdjustForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                txn = wallet_adjust(
                    user=user,
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    staff_user=request.user,
                    idempotency_key=form.cleaned_data["idempotency_key"],
                )
            except LedgerError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(
                    request,
                    _("Wallet of %(user)s adjusted by %(amount)s (transaction #%(number)s).")
                    % {"user": user, "amount": f"{form.cleaned_data['amount']:+d}", "number": txn.pk},
                )
                return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Adjust the wallet of %(user)s") % {"user": user},
            "target": user,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "accounts/admin/adjust_wallet.html", context)


@admin.register(Ban)
class BanAdmin(ReadOnlyAdmin):
    """History of bans; bans are made and lifted from the users list or a user's page."""

    list_display = ["user", "reason", "staff_user", "created_at", "lifted_at", "lifted_by"]
    list_filter = [("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "reason"]


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
    search_fields = ["key", "user__username"]


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ["pk", "created_at", "kind", "amount", "memo", "created_by", "idempotency_key"]
    list_filter = ["kind"]
    search_fields = ["idempotency_key", "memo", "created_by__username"]
    inlines = [LedgerEntryInline]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["pk", "transaction", "account", "amount"]
    list_select_related = ["transaction", "account"]
    search_fields = ["account__key", "transaction__idempotency_key"]
