"""The tournament pages: the sit-and-go lobby, registering and unregistering, one tournament.

Thin: games/tournaments/service.py decides and moves chips, queries.py reads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.services import LedgerError
from games.tournaments import queries
from games.tournaments.announce import tournaments_changed
from games.tournaments.service import TournamentRefused, register, unregister


def while_open(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Tournaments are not open to players until play at their tables is built (settings)."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.TOURNAMENTS_OPEN:
            raise Http404("tournaments are not open yet")
        return view(request, *args, **kwargs)

    return guarded


def _lists(request: HttpRequest) -> dict[str, object]:
    return {
        "open_rows": queries.open_rows(user=request.user),
        "running_rows": queries.running_rows(user=request.user),
    }


@while_open
def tournaments_page(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "tournaments/lobby.html",
        {**_lists(request), "finished": queries.finished_tournaments()},
    )


@while_open
def tournaments_list(request: HttpRequest) -> HttpResponse:
    """The lists alone: fetched when the lobby socket says they changed, and every 30 s."""
    return render(request, "tournaments/_lists.html", _lists(request))


def _tournament_id(raw: str) -> int:
    if not raw.isdigit() or len(raw) > 9:
        raise Http404("no such tournament")
    return int(raw)


@while_open
@login_required
@require_POST
def register_view(request: HttpRequest, pk: str) -> HttpResponse:
    try:
        done = register(user=request.user, tournament_id=_tournament_id(pk))
    except (TournamentRefused, LedgerError) as exc:
        messages.warning(request, str(exc))
        return redirect("tournaments")
    tournaments_changed()
    if done.started:
        messages.success(request, _("You took the last seat: the tournament starts now."))
        return redirect("tournament", pk=done.entry.tournament_id)
    messages.success(request, _("You are registered. The tournament starts when its last seat is taken."))
    return redirect("tournaments")


@while_open
@login_required
@require_POST
def unregister_view(request: HttpRequest, pk: str) -> HttpResponse:
    try:
        unregister(user=request.user, tournament_id=_tournament_id(pk))
    except (TournamentRefused, LedgerError) as exc:
        messages.warning(request, str(exc))
        return redirect("tournaments")
    tournaments_changed()
    messages.success(request, _("You are unregistered; your buy-in is back in your wallet."))
    return redirect("tournaments")


@while_open
def tournament_page(request: HttpRequest, pk: str) -> HttpResponse:
    detail = queries.tournament_detail(tournament_id=_tournament_id(pk), user=request.user)
    if detail is None:
        raise Http404("no such tournament")
    return render(request, "tournaments/tournament.html", {"detail": detail})
