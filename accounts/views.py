"""Profile page and the two claim buttons. Thin: the services decide, the views report."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.formats import date_format, number_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_POST

from accounts.faces import FACES
from accounts.models import LedgerEntry, LedgerTransaction
from accounts.services import (
    LedgerError,
    grant_status,
    wallet_balance,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)
from accounts.services.profile import chip_page, hand_stats, monthly_statement, set_face, set_stats_hidden
from accounts.services.responsible import (
    PERIOD_LABELS,
    PERIOD_WORDS,
    REALITY_CHECK_MINUTES,
    active_break,
    loss_limit_status,
    loss_limits,
    mark_reality_checked,
    play_time_limits,
    set_loss_limit,
    set_play_time_limit,
    set_reality_check,
    take_break,
    take_time_out,
)

ROWS_PER_PAGE = 20

Kind = LedgerTransaction.Kind
# The chip history's words for each kind of movement, translated when shown.
KIND_LABELS = {
    Kind.SIGNUP_BONUS: gettext_noop("sign-up bonus"),
    Kind.DAILY_BONUS: gettext_noop("daily bonus"),
    Kind.REFILL: gettext_noop("refill"),
    Kind.ADJUST: gettext_noop("staff adjustment"),
    Kind.BUY_IN: gettext_noop("buy-in"),
    Kind.CASH_OUT: gettext_noop("cash-out"),
    Kind.HAND_SETTLE: gettext_noop("hand settled"),
}
# The memos the room writes itself (the ledger stores them in English); a staff adjustment's memo
# is the staff member's own words and is shown as written.
MEMOS = [
    (re.compile(r"welcome chips"), gettext_noop("welcome chips")),
    (re.compile(r"daily bonus"), gettext_noop("daily bonus")),
    (
        re.compile(r"refill from (?P<held>\d+) to (?P<target>\d+)"),
        gettext_noop("refill from %(held)s to %(target)s"),
    ),
    (re.compile(r"buy-in at table (?P<table>\d+)"), gettext_noop("buy-in at table %(table)s")),
    (re.compile(r"cash-out from table (?P<table>\d+)"), gettext_noop("cash-out from table %(table)s")),
    (
        re.compile(r"hand (?P<number>\d+) at table (?P<table>\d+)"),
        gettext_noop("hand %(number)s at table %(table)s"),
    ),
    (re.compile(r"hand at table (?P<table>\d+)"), gettext_noop("hand at table %(table)s")),
]


def _memo(txn: LedgerTransaction) -> str:
    if txn.kind != Kind.ADJUST:
        for pattern, text in MEMOS:
            if match := pattern.fullmatch(txn.memo):
                return _(text) % match.groupdict()
    return txn.memo


def _with_labels(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    for entry in entries:
        kind = entry.transaction.kind
        if kind == Kind.HAND_SETTLE:  # what happened to this player: the hand won or lost
            entry.kind_label = _("hand won") if entry.amount > 0 else _("hand lost")
        else:
            entry.kind_label = _(KIND_LABELS.get(kind, kind))
        entry.note = _memo(entry.transaction)
    return entries


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    page = chip_page(user=user, raw_number=request.GET.get("page"), size=ROWS_PER_PAGE)
    _with_labels(page.entries)
    context = {
        "balance": wallet_balance(user=user),
        "grants": grant_status(user=user),
        "stats": hand_stats(user=user),
        "page": page,
        "play_break": active_break(user=user),
        "break_periods": PERIOD_LABELS.items(),
        "loss_limits": loss_limits(user=user),
        "loss_status": loss_limit_status(user=user),
        "play_minutes": play_time_limits(user_ids=[user.pk]).get(user.pk),
        "statement": monthly_statement(user=user),
        "reality_check_choices": REALITY_CHECK_MINUTES,
        "faces": FACES.items(),
    }
    return render(request, "accounts/profile.html", context)


@login_required
@require_POST
def take_break_view(request: HttpRequest) -> HttpResponse:
    """Start a time-out or a self-exclusion (responsible play); it cannot be undone, hence the box."""
    if request.POST.get("confirm") != "on":
        messages.warning(request, _("Tick the box to confirm: a break cannot be ended early."))
        return redirect("/profile/#break")
    try:
        take_break(user=request.user, period=request.POST.get("period"))
    except LedgerError as exc:
        messages.warning(request, str(exc))
    return redirect("/profile/#break")


def responsible_play(request: HttpRequest) -> HttpResponse:
    """What the responsible play tools do and where help is; open to everyone, signed in or not."""
    return render(request, "accounts/responsible_play.html", {"periods": PERIOD_LABELS.values()})


@login_required
@require_POST
def set_privacy(request: HttpRequest) -> HttpResponse:
    """Hide or show the player's figures on their page and the leaderboards (a checkbox: absent
    means shown)."""
    hidden = request.POST.get("stats_hidden") == "on"
    set_stats_hidden(user=request.user, hidden=hidden)
    if hidden:
        messages.success(
            request, _("Your figures are hidden: others see only your name and when you joined.")
        )
    else:
        messages.success(request, _("Your figures are shown on your page and the leaderboards."))
    return redirect("profile")


@login_required
@require_POST
def set_face_view(request: HttpRequest) -> HttpResponse:
    """The face shown at the player's seat, on their page and in the lobby (a choice of radios)."""
    try:
        set_face(user=request.user, face=request.POST.get("face"))
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(request, _("Your face is saved; a table shows it the next time you sit down."))
    return redirect("/profile/#face")


@login_required
@require_POST
def claim_daily_bonus(request: HttpRequest) -> HttpResponse:
    try:
        txn = wallet_claim_daily_bonus(user=request.user)
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(
            request,
            _("Daily bonus: %(amount)s chips added to your wallet.")
            % {"amount": number_format(txn.amount, force_grouping=True)},
        )
    return redirect("profile")


@login_required
@require_POST
def claim_refill(request: HttpRequest) -> HttpResponse:
    try:
        txn = wallet_claim_refill(user=request.user)
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(
            request,
            _("Refill: %(amount)s chips added to your wallet.")
            % {"amount": number_format(txn.amount, force_grouping=True)},
        )
    return redirect("profile")


@login_required
@require_POST
def set_loss_limit_view(request: HttpRequest) -> HttpResponse:
    """Set, lower, raise or remove (an empty box) a loss limit; the service says when it applies."""
    raw = request.POST.get("amount", "").strip()
    period = request.POST.get("period")
    try:
        amount = int(raw) if raw else None
    except ValueError:
        amount = -1  # refused by the service with its message
    try:
        row = set_loss_limit(user=request.user, period=period, amount=amount)
    except LedgerError as exc:
        messages.warning(request, str(exc))
        return redirect("/profile/#limits")
    words = {"period": PERIOD_WORDS[row.period]}
    if row.next_at is None:
        messages.success(
            request,
            _("Your loss limit for the %(period)s is now %(amount)s chips.")
            % {**words, "amount": number_format(row.amount, force_grouping=True)},
        )
    else:
        new = (
            _("%(amount)s chips") % {"amount": number_format(row.next_amount, force_grouping=True)}
            if row.next_amount is not None
            else _("no limit")
        )
        messages.success(
            request,
            _(
                "A higher limit or none waits 24 hours: "
                "your %(period)s limit of %(new)s takes effect on %(when)s."
            )
            % {**words, "new": new, "when": date_format(timezone.localtime(row.next_at), "DATETIME_FORMAT")},
        )
    return redirect("/profile/#limits")


@login_required
@require_POST
def set_play_time_limit_view(request: HttpRequest) -> HttpResponse:
    """Set, lower, raise or remove (an empty box) the daily play-time limit."""
    raw = request.POST.get("minutes", "").strip()
    try:
        minutes = int(raw) if raw else None
    except ValueError:
        minutes = -1  # refused by the service with its message
    try:
        row = set_play_time_limit(user=request.user, minutes=minutes)
    except LedgerError as exc:
        messages.warning(request, str(exc))
        return redirect("/profile/#play-time")
    if row.next_at is None:
        messages.success(
            request, _("Your play-time limit is now %(minutes)s minutes a day.") % {"minutes": row.minutes}
        )
    else:
        messages.success(
            request,
            _("A longer limit or none waits 24 hours: it takes effect on %(when)s.")
            % {"when": date_format(timezone.localtime(row.next_at), "DATETIME_FORMAT")},
        )
    return redirect("/profile/#play-time")


@login_required
@require_POST
def set_reality_check_view(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("minutes", "").strip()
    try:
        set_reality_check(user=request.user, minutes=int(raw) if raw.isdigit() else raw)
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        minutes = request.user.reality_check_minutes
        if minutes:
            messages.success(request, _("A reality check every %(minutes)s minutes.") % {"minutes": minutes})
        else:
            messages.success(request, _("The reality check is off."))
    return redirect("/profile/#reality-check-setting")


@login_required
@require_POST
def reality_check_continue(request: HttpRequest) -> HttpResponse:
    """Continue: the next reminder comes one interval from now. Back to the page it showed on."""
    mark_reality_checked(session=request.session)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/profile/"
    return redirect(back)


@login_required
@require_POST
def reality_check_break(request: HttpRequest) -> HttpResponse:
    """Take a break, from the reality check: a time-out of the length picked, in one click (the
    reminder is the moment to decide; a self-exclusion is for the profile, with its box)."""
    try:
        play_break = take_time_out(user=request.user, period=request.POST.get("period"))
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        mark_reality_checked(session=request.session)
        messages.success(
            request,
            _("Your break from play has begun: it ends on %(when)s.")
            % {"when": date_format(timezone.localtime(play_break.ends_at), "DATETIME_FORMAT")},
        )
    return redirect("/profile/#break")
