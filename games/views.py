"""Pages: home, lobby, opening a table, "Play now", invite links, the table page.

Thin: the lobby service (games/lobby/service.py) decides, the live service holds the table in play, and the
table page renders the same regions the table's WebSocket sends (games/tables/ui/regions.py), from the
view built for this viewer only.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.services import wallet_balance
from games.live import service
from games.live.store import StateError
from games.live.views import build_view
from games.lobby import service as lobby
from games.lobby.forms import TableForm
from games.models import STAKES, Table
from games.tables.ui.regions import render_regions

log = logging.getLogger(__name__)

INVITES_SESSION_KEY = lobby.INVITES_SESSION_KEY


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def bad_request(request: HttpRequest, *, message: str) -> HttpResponse:
    """The room's 400 page, saying what was wrong."""
    return render(request, "400.html", {"message": message}, status=400)


def _stake_or_refusal(request: HttpRequest) -> int | HttpResponse | None:
    raw = request.GET.get("stake")
    try:
        return lobby.stake_filter(raw=raw)
    except lobby.BadStake:
        stakes = ", ".join(number_format(s, force_grouping=True) for s in STAKES)
        return bad_request(
            request,
            message=_("“%(value)s” is not a stake. The stakes are %(stakes)s.")
            % {"value": (raw or "")[:20], "stakes": stakes},
        )


def lobby_page(request: HttpRequest) -> HttpResponse:
    stake = _stake_or_refusal(request)
    if isinstance(stake, HttpResponse):
        return stake
    return render(
        request,
        "games/lobby.html",
        {
            "rows": lobby.open_tables(stake=stake),
            "stake": stake,
            "stakes": STAKES,
            "form": TableForm(),
            "my_private_tables": lobby.private_tables_of(user=request.user),
        },
    )


def lobby_tables(request: HttpRequest) -> HttpResponse:
    """The table list alone: the fallback the lobby polls when its WebSocket is not connected."""
    stake = _stake_or_refusal(request)
    if isinstance(stake, HttpResponse):
        return stake
    return render(
        request, "games/lobby/_tables.html", {"rows": lobby.open_tables(stake=stake), "stake": stake}
    )


@login_required
def new_table(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        table = lobby.create_table(user=request.user, form_data=form.cleaned_data)
        if table.private:
            messages.success(request, _("Your private table is open: send the invite link to your friends."))
        return redirect("table", table_id=table.pk)
    return render(request, "games/new_table.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    try:
        result = lobby.play_now(user=request.user)
    except lobby.LobbyError as exc:
        messages.warning(request, str(exc))
        return redirect("lobby")
    if not result.seated:
        messages.info(request, _("You already have a seat here."))
    return redirect("table", table_id=result.table.pk)


@login_required
def invite(request: HttpRequest, code: str) -> HttpResponse:
    table = lobby.table_by_invite(code=code)
    if table is None:
        raise Http404("no table has this invite link")
    invited = set(request.session.get(INVITES_SESSION_KEY, []))
    invited.add(table.pk)
    request.session[INVITES_SESSION_KEY] = sorted(invited)
    return redirect("table", table_id=table.pk)


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    invited = table.pk in request.session.get(INVITES_SESSION_KEY, [])
    if not lobby.can_view(user=request.user, table=table, invited=invited):
        # Private tables are not told apart from missing ones: the invite code is the secret.
        raise Http404("no such table")
    context = {
        "table": table,
        "regions": _initial_regions(table_id=table.pk, user_id=request.user.pk),
        "invite_url": request.build_absolute_uri(reverse("invite", args=[table.invite_code]))
        if table.private and not table.practice  # a practice table has nobody to invite
        else None,
    }
    return render(request, "games/table.html", context)


def _initial_regions(*, table_id: int, user_id: int) -> SafeString | None:
    """The table as it is now, for the first paint; the socket sends the same on connecting."""
    try:
        state = async_to_sync(service.load_table_state)(table_id)
    except (StateError, service.Refused):
        log.exception("table %s: no initial state for the page", table_id)
        return None
    return render_regions(view=build_view(state.doc, user_id=user_id, version=state.version))


@login_required
def balance(request: HttpRequest) -> HttpResponse:
    """The header's balance alone, refreshed by htmx (a seat bought in or cashed out)."""
    return render(request, "games/_balance.html", {"wallet_balance": wallet_balance(user=request.user)})
