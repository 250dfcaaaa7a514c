"""The staff's page of users: bans and lifts, wallet adjustments, and who may change whose rights.

The pages offer an action only to who holds its permission (``staff_log.may``); the services
refuse it anyway. Staff rights (superuser, staff, active, groups, permissions) are changed by
superusers only, never on their own account; a staff account is changed by superusers only (its
password too). No staff member sets a player's password (the player resets their own, by e-mail),
nor, short of a superuser, moves the e-mail that reset goes to: either would hand over the account.
Every change to an account is a line of the staff log.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts import staff_kinds
from accounts.admin_paging import GrowingListAdmin
from accounts.forms import BanForm, LiftBanForm, WalletAdjustForm
from accounts.models import Ban, LedgerAccount, LossLimit, PlayBreak, User
from accounts.services import (
    LedgerError,
    StaffRefusal,
    active_break,
    ban_user,
    lift_ban,
    lift_break,
    may,
    wallet_adjust,
    wallet_balance,
)
from accounts.services.sign_ins import sign_in_addresses
from accounts.staff_log.log import log_account_change, log_rights_change, user_rights
from accounts.staff_pages import (
    form_token,
    player_links,
    refuse_if_sent,
    staff_action_page,
    staff_log_link,
    with_new_token,
)

Kind = staff_kinds
RIGHTS_FIELDS = ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")
# Where the player's own password reset goes: whoever moves it can take the account.
RESET_FIELDS = ("email",)


class ShownOnlyInline(admin.TabularInline):
    """A record of the player's shown on their page and never changed there: bans change through
    the ban actions, breaks and limits only through their services (with the rules they keep)."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class BanInline(ShownOnlyInline):
    model = Ban
    fk_name = "user"
    fields = ["created_at", "reason", "staff_user", "lifted_at", "lifted_by", "lift_reason"]
    readonly_fields = fields


def _plain(value):
    """A form value as the log's JSON keeps it; times to the second, as the page shows them (the
    page's boxes drop a sign-up time's microseconds, which is no change anyone made)."""
    if value is None or isinstance(value, str | int | bool):
        return value
    if isinstance(value, datetime):
        return value.replace(microsecond=0).isoformat()
    return str(value)


class PlayBreakInline(ShownOnlyInline):
    """The player's own time-outs and self-exclusions: shown, never changed here (only a
    superuser ends one early, through accounts.services.lift_break, with a reason)."""

    model = PlayBreak
    fk_name = "user"
    fields = ["kind", "started_at", "ends_at", "lifted_at", "lifted_by", "lift_reason"]
    readonly_fields = fields


class LossLimitInline(ShownOnlyInline):
    """The player's loss limits, as set by the player alone: shown, never changed here."""

    model = LossLimit
    fk_name = "user"
    fields = ["period", "amount", "next_amount", "next_at", "changed_at"]
    readonly_fields = fields


@admin.register(User)
class UserAdmin(GrowingListAdmin, DjangoUserAdmin):
    list_display = ["username", "email", "wallet", "banned", "is_staff", "date_joined"]
    inlines = [BanInline, PlayBreakInline, LossLimitInline]
    actions = ["ban_users", "lift_bans"]
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (gettext_lazy("Chips and bans"), {"fields": ["chips", "addresses"]}),
    )
    # An address's beginning finds every account that signed in from there ("10.1.2." or the whole).
    search_fields = (*DjangoUserAdmin.search_fields, "^sign_ins__address")

    def get_queryset(self, request: HttpRequest):
        balance = LedgerAccount.objects.filter(kind=LedgerAccount.Kind.WALLET, user=OuterRef("pk")).values(
            "balance"
        )
        active = Ban.objects.filter(user=OuterRef("pk"), lifted_at__isnull=True).values("pk")
        return (
            super().get_queryset(request).annotate(_wallet=Subquery(balance[:1]), _ban=Subquery(active[:1]))
        )

    @admin.display(description=gettext_lazy("wallet"), ordering="_wallet")
    def wallet(self, user: User) -> int:
        return user._wallet or 0

    @admin.display(description=gettext_lazy("banned"), boolean=True)
    def banned(self, user: User) -> bool:
        return user._ban is not None

    # --- rights: who may change whom, and which fields ---

    def may_change_rights(self, request: HttpRequest, obj: User | None) -> bool:
        return request.user.is_superuser and (obj is None or obj.pk != request.user.pk)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        fields = ["chips", "addresses"]
        if obj is not None and not self.may_change_rights(request, obj):
            fields += RIGHTS_FIELDS  # not in the form at all: a posted value is ignored
        if obj is not None and not request.user.is_superuser and obj.pk != request.user.pk:
            fields += RESET_FIELDS
        return fields

    def may_set_password(self, request: HttpRequest, obj: User | None) -> bool:
        """Superusers, on staff accounts only: a player's password is the player's alone."""
        return obj is not None and request.user.is_superuser and (obj.is_staff or obj.is_superuser)

    def get_fieldsets(self, request: HttpRequest, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.may_set_password(request, obj):
            return fieldsets
        # The password box is only a link to the form that sets it: not offered where it is refused.
        return [
            (name, {**options, "fields": [f for f in options["fields"] if f != "password"]})
            for name, options in fieldsets
        ]

    @transaction.atomic
    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        user = self.get_object(request, id)
        if user is not None and not self.may_set_password(request, user):
            raise PermissionDenied
        response = super().user_change_password(request, id, form_url)
        if request.method == "POST" and response.status_code == 302 and user is not None:
            done = "set" if User.objects.get(pk=user.pk).has_usable_password() else "unset"
            log_account_change(staff_user=request.user, user=user, changed={"password": done})
        return response

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        # A staff account (its password, its e-mail) is in superusers' hands only: taking one over
        # would be a way around the rights above.
        staff_account = obj is not None and (obj.is_staff or obj.is_superuser) and obj.pk != request.user.pk
        return not staff_account or request.user.is_superuser

    def save_model(self, request: HttpRequest, obj: User, form, change: bool) -> None:
        if change and self.may_change_rights(request, obj):
            request._rights_before = user_rights(user=obj)
        super().save_model(request, obj, form, change)
        if change:
            # The details (rights have their own line, in save_related; the password its own page).
            changed = {
                field: [_plain(form.initial.get(field)), _plain(form.cleaned_data.get(field))]
                for field in form.changed_data
                if field not in RIGHTS_FIELDS
                and field != "password"
                and _plain(form.initial.get(field)) != _plain(form.cleaned_data.get(field))
            }
            log_account_change(staff_user=request.user, user=obj, changed=changed)

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        before = getattr(request, "_rights_before", None)
        if before is not None:
            log_rights_change(staff_user=request.user, user=form.instance, before=before)

    # --- the chips and bans section, and links to what this staff member may do ---

    @admin.display(description=gettext_lazy("chips"))
    def chips(self, user: User) -> str:
        if user.pk is None:
            return "-"
        return _("%(chips)s in the wallet.") % {"chips": user._wallet or 0}

    @admin.display(description=gettext_lazy("signed in from"))
    def addresses(self, user: User) -> str:
        if user.pk is None:
            return "-"
        changelist = reverse("admin:accounts_user_changelist")
        lines = []
        for row in sign_in_addresses(user=user):
            when = date_format(localtime(row["last"]), "DATETIME_FORMAT")
            times = ngettext(
                "%(times)s time, last %(when)s", "%(times)s times, last %(when)s", row["times"]
            ) % {"times": row["times"], "when": when}
            # Each address links to every account that signed in from it.
            url = f"{changelist}?{urlencode({'q': row['address']})}"
            lines.append(format_html('<a href="{}">{}</a> ({})', url, row["address"], times))
        return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in lines)) if lines else "-"

    def staff_links(self, request: HttpRequest, user: User) -> list[tuple[str, str]]:
        """The buttons on a player's page: only the actions this staff member may take."""
        links = player_links(staff_user=request.user, user_id=user.pk, first=True)
        if self.has_adjust_permission(request):
            url = reverse("admin:accounts_user_adjust_wallet", args=[user.pk])
            links.append((url, _("Adjust the wallet")))
        banned = user._ban is not None
        if not banned and self.has_ban_permission(request):
            links.append((reverse("admin:accounts_user_ban", args=[user.pk]), _("Ban this user")))
        if banned and self.has_lift_permission(request):
            links.append((reverse("admin:accounts_user_lift_ban", args=[user.pk]), _("Lift the ban")))
        if self.has_lift_break_permission(request) and active_break(user=user) is not None:
            url = reverse("admin:accounts_user_lift_break", args=[user.pk])
            links.append((url, _("End the break from play early")))
        if request.user.has_perm("accounts.view_staffaction"):
            links.append((staff_log_link(user=user), _("Staff actions on this user")))
        # Other parts' pages about the player (the games app's: what they did at tables).
        return links + player_links(staff_user=request.user, user_id=user.pk, first=False)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        user = self.get_queryset(request).filter(pk=object_id).first() if object_id.isdigit() else None
        extra = {"staff_links": self.staff_links(request, user) if user is not None else []}
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def get_urls(self):
        def view(fn, name):
            url = f"<int:user_id>/{name.replace('_', '-')}/"
            return path(url, self.admin_site.admin_view(fn), name=f"accounts_user_{name}")

        return [
            view(self.adjust_wallet_view, "adjust_wallet"),
            view(self.ban_view, "ban"),
            view(self.lift_ban_view, "lift_ban"),
            view(self.lift_break_view, "lift_break"),
            *super().get_urls(),
        ]

    # --- permissions: custom ones, so they can be given to staff without "change user" ---

    def has_ban_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.BAN)

    def has_lift_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.LIFT_BAN)

    def has_lift_break_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.LIFT_BREAK)

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.WALLET_ADJUST)

    # --- one player's page for each action ---

    def _target(self, request: HttpRequest, user_id: int) -> User | None:
        user = self.get_queryset(request).filter(pk=user_id).first()
        if user is None:
            self.message_user(
                request,
                _("There is no player #%(number)s; nothing was changed.") % {"number": user_id},
                messages.ERROR,
            )
        return user

    def _own_page(self, request: HttpRequest, user_id: int, *, allowed: bool):
        """(user, token, response): a response (refusal, redirect) means show it and stop."""
        if not allowed:
            raise PermissionDenied
        user = self._target(request, user_id)
        if user is None:
            return None, None, HttpResponseRedirect(reverse("admin:accounts_user_changelist"))
        token = form_token(request)
        if token is None:
            return user, None, with_new_token(request)
        return user, token, None

    def _back_to(self, user: User) -> str:
        return reverse("admin:accounts_user_change", args=[user.pk])

    def adjust_wallet_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        user, token, response = self._own_page(request, user_id, allowed=self.has_adjust_permission(request))
        if response is not None:
            return response
        sent = refuse_if_sent(self, request, log_token=f"adjust:{token}", back_to=self._back_to(user))
        if sent is not None:
            return sent
        form = WalletAdjustForm(request.POST or None, token=token)
        held = wallet_balance(user=user)
        if form.is_bound and form.is_valid() and held + form.cleaned_data["amount"] < 0:
            form.add_error(
                "amount",
                _("Not enough chips in %(account)s: it holds %(held)s, %(needed)s are needed.")
                % {
                    "account": _("the wallet of %(user)s") % {"user": user},
                    "held": held,
                    "needed": -form.cleaned_data["amount"],
                },
            )

        def summary(data) -> list[str]:
            amount = data["amount"]
            words = {"user": user, "chips": abs(amount), "now": held, "after": held + amount}
            if amount > 0:
                return [
                    _("Add %(chips)s chips to the wallet of %(user)s, from the house.") % words,
                    _("The wallet holds %(now)s now and will hold %(after)s.") % words,
                ]
            return [
                _("Take %(chips)s chips from the wallet of %(user)s, back to the house.") % words,
                _("The wallet holds %(now)s now and will hold %(after)s.") % words,
            ]

        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Adjust the wallet of %(user)s") % {"user": user},
            intro=_(
                "Chips move between the house and the wallet as one ledger transaction recorded under "
                "your name, with the reason as its memo. A removal cannot take the wallet below zero."
            ),
            summary=summary,
            submit=_("Adjust the wallet"),
        )
        if page is not None:
            return page
        data = form.cleaned_data
        try:
            txn = wallet_adjust(
                user=user,
                amount=data["amount"],
                reason=data["reason"],
                staff_user=request.user,
                idempotency_key=f"adjust:{data['token']}",
            )
        except (LedgerError, StaffRefusal) as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(
                request,
                _("Wallet of %(user)s adjusted by %(amount)s (transaction #%(number)s).")
                % {"user": user, "amount": f"{data['amount']:+d}", "number": txn.pk},
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self._back_to(user))

    def ban_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        user, token, response = self._own_page(request, user_id, allowed=self.has_ban_permission(request))
        if response is not None:
            return response
        sent = refuse_if_sent(self, request, log_token=f"{token}:{user.pk}", back_to=self._back_to(user))
        if sent is not None:
            return sent
        form = BanForm(request.POST or None, token=token)
        page = self._ban_page(request, [user], form=form)
        if page is not None:
            return page
        self._ban(request, [user], reason=form.cleaned_data["reason"], token=form.cleaned_data["token"])
        return HttpResponseRedirect(self._back_to(user))

    def lift_ban_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        user, token, response = self._own_page(request, user_id, allowed=self.has_lift_permission(request))
        if response is not None:
            return response
        sent = refuse_if_sent(self, request, log_token=f"{token}:{user.pk}", back_to=self._back_to(user))
        if sent is not None:
            return sent
        form = LiftBanForm(request.POST or None, token=token)
        page = self._lift_page(request, [user], form=form)
        if page is not None:
            return page
        self._lift(request, [user], reason=form.cleaned_data["reason"], token=form.cleaned_data["token"])
        return HttpResponseRedirect(self._back_to(user))

    def lift_break_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """A player's own time-out or self-exclusion ended early: superusers only, with a reason."""
        allowed = self.has_lift_break_permission(request)
        user, token, response = self._own_page(request, user_id, allowed=allowed)
        if response is not None:
            return response
        sent = refuse_if_sent(self, request, log_token=f"{token}:{user.pk}", back_to=self._back_to(user))
        if sent is not None:
            return sent
        form = LiftBanForm(request.POST or None, token=token)
        name = user.get_username()
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("End the break from play of %(user)s") % {"user": name},
            intro=_(
                "The player chose this break to protect themselves: end it only for a serious reason "
                "(made by someone else, say). The reason is recorded with your name in the staff log."
            ),
            targets=[name],
            summary=lambda data: [_("End the break from play of %(user)s now.") % {"user": name}],
            submit=_("End the break"),
            selected=[user],
        )
        if page is not None:
            return page
        self._each(
            request,
            [user],
            lambda u: lift_break(
                user=u, reason=form.cleaned_data["reason"], staff_user=request.user, token=f"{token}:{u.pk}"
            ),
            _("The break from play of %(user)s is ended."),
        )
        return HttpResponseRedirect(self._back_to(user))

    # --- bans: the pages and the acting, shared by the list's actions and the player's page ---

    def _ban_page(self, request: HttpRequest, users, *, form, action=None) -> HttpResponse | None:
        names = ", ".join(u.get_username() for u in users)
        return staff_action_page(
            self,
            request,
            form=form,
            title=_("Ban users") if action else _("Ban %(user)s") % {"user": names},
            intro=_(
                "Banned users cannot log in (their open sessions end too) and cannot sit at a table. "
                "The reason is recorded with your name and shown to the user."
            ),
            targets=[u.get_username() for u in users],
            summary=lambda data: [_("Ban %(users)s.") % {"users": names}],
            submit=_("Ban"),
            action=action,
            selected=users,
        )

    def _lift_page(self, request: HttpRequest, users, *, form, action=None) -> HttpResponse | None:
        names = ", ".join(u.get_username() for u in users)
        return staff_action_page(
            self,
            request,
            form=form,
            title=_("Lift bans"),
            intro=_("The user may log in and sit at tables again. The ban stays on record with the reason."),
            targets=[u.get_username() for u in users],
            summary=lambda data: [_("Lift the ban of %(users)s.") % {"users": names}],
            submit=_("Lift the ban"),
            action=action,
            selected=users,
        )

    def _each(self, request: HttpRequest, users, act, done: str) -> None:
        for user in users:
            try:
                act(user)
            except (LedgerError, StaffRefusal) as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, done % {"user": user}, messages.SUCCESS)

    def _ban(self, request: HttpRequest, users, *, reason: str, token: str) -> None:
        self._each(
            request,
            users,
            lambda u: ban_user(user=u, reason=reason, staff_user=request.user, token=f"{token}:{u.pk}"),
            _("%(user)s is banned."),
        )

    def _lift(self, request: HttpRequest, users, *, reason: str, token: str) -> None:
        self._each(
            request,
            users,
            lambda u: lift_ban(user=u, reason=reason, staff_user=request.user, token=f"{token}:{u.pk}"),
            _("The ban of %(user)s is lifted."),
        )

    @admin.action(description=gettext_lazy("Ban selected users (asks for a reason)"), permissions=["ban"])
    def ban_users(self, request: HttpRequest, queryset) -> HttpResponse | None:
        users = list(queryset)
        form = BanForm(request.POST if "apply" in request.POST else None)
        page = self._ban_page(request, users, form=form, action="ban_users")
        if page is None:
            self._ban(request, users, reason=form.cleaned_data["reason"], token=form.cleaned_data["token"])
        return page

    @admin.action(
        description=gettext_lazy("Lift the bans of selected users (asks for a reason)"), permissions=["lift"]
    )
    def lift_bans(self, request: HttpRequest, queryset) -> HttpResponse | None:
        users = list(queryset)
        form = LiftBanForm(request.POST if "apply" in request.POST else None)
        page = self._lift_page(request, users, form=form, action="lift_bans")
        if page is None:
            self._lift(request, users, reason=form.cleaned_data["reason"], token=form.cleaned_data["token"])
        return page
