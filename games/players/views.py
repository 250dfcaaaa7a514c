"""The players' pages: a player's page and the leaderboards. Thin views over ``service``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from games.players import service
from games.social import friends
from games.social.ignores import ignored_ids


@login_required
def player_page(request: HttpRequest, username: str) -> HttpResponse:
    player = service.player_named(username=username)
    if player is None:
        raise Http404("no such player")
    page = service.player_page(player=player, viewer=request.user)
    ignoring = not page.own and player.pk in ignored_ids(user=request.user)
    relation = "" if page.own else friends.relation(user=request.user, other=player)
    return render(
        request,
        "players/player.html",
        {"page": page, "player": player, "ignoring": ignoring, "relation": relation},
    )


def leaderboard(request: HttpRequest) -> HttpResponse:
    try:
        period = service.period_from(request.GET.get("period"))
    except service.BadPeriod:
        message = _("There is no such leaderboard: choose this week, this month or all time.")
        return render(request, "400.html", {"message": message}, status=400)
    board = service.leaderboard(period=period)
    return render(
        request,
        "players/leaderboard.html",
        {"board": board, "periods": service.BOARD_PERIODS, "min_hands": service.MIN_HANDS},
    )
