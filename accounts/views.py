"""Profile page and the two claim buttons. Thin: the services decide, the views report."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.services import (
    LedgerError,
    grant_status,
    wallet_balance,
    wallet_claim_daily_bonus,
    wallet_claim_refill,
)
from accounts.services.profile import hand_stats, ledger_rows

ROWS_PER_PAGE = 20


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    page = Paginator(ledger_rows(user=user), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "balance": wallet_balance(user=user),
        "grants": grant_status(user=user),
        "stats": hand_stats(user=user),
        "page": page,
    }
    return render(request, "accounts/profile.html", context)


@login_required
@require_POST
def claim_daily_bonus(request: HttpRequest) -> HttpResponse:
    try:
        txn = wallet_claim_daily_bonus(user=request.user)
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(request, f"Daily bonus: {txn.amount:,} chips added to your wallet.")
    return redirect("profile")


@login_required
@require_POST
def claim_refill(request: HttpRequest) -> HttpResponse:
    try:
        txn = wallet_claim_refill(user=request.user)
    except LedgerError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(request, f"Refill: {txn.amount:,} chips added to your wallet.")
    return redirect("profile")
