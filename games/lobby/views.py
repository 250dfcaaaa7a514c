"""Pages: home, lobby, opening a table, "Play now", invite links, the header's balance.

Thin: the lobby service (games/lobby/service.py) decides; the table page is games/tables/views.py.
"""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.services import wallet_balance
from accounts.services.responsible import may_be_notified
from games.lobby import service as lobby
from games.lobby.forms import TableForm
from games.models import STAKES
from games.tables.access import INVITES_SESSION_KEY

log = logging.getLogger(__name__)


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
    listed = lobby.lobby_page(stake=stake, page=request.GET.get("page"))
    return render(
        request,
        "games/lobby.html",
        {
            "rows": listed.rows,
            "page": listed.page,
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
    listed = lobby.lobby_page(stake=stake, page=request.GET.get("page"))
    return render(
        request, "games/lobby/_tables.html", {"rows": listed.rows, "page": listed.page, "stake": stake}
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
    if not may_be_notified(user=request.user):
        # A self-excluded player gets no invitation to play, from the room or from a friend's link.
        messages.info(
            request, _("You have excluded yourself from play: invitations to tables are not shown.")
        )
        return redirect("lobby")
    invited = set(request.session.get(INVITES_SESSION_KEY, []))
    invited.add(table.pk)
    request.session[INVITES_SESSION_KEY] = sorted(invited)
    return redirect("table", table_id=table.pk)


@login_required
def balance(request: HttpRequest) -> HttpResponse:
    """The header's balance alone, refreshed by htmx (a seat bought in or cashed out)."""
    return render(request, "games/_balance.html", {"wallet_balance": wallet_balance(user=request.user)})
