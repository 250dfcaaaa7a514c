"""The table page: the table as it is now, for the first paint; its socket (consumers.py) sends the
same regions (ui/regions.py) on every change, from the view built for this viewer only.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.services import wallet_balance
from games.live import records, series, service
from games.live.store import StateError
from games.live.views import build_view
from games.models import ChatMode, Seat, Table
from games.social import chat, ignores
from games.tables.access import INVITES_SESSION_KEY, can_view
from games.tables.ui import chat as chat_ui
from games.tables.ui.regions import render_regions

log = logging.getLogger(__name__)


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    invited = table.pk in request.session.get(INVITES_SESSION_KEY, [])
    if not can_view(user=request.user, table=table, invited=invited):
        # Private tables are not told apart from missing ones: the invite code is the secret.
        raise Http404("no such table")
    context = {
        "table": table,
        "regions": _initial_regions(table_id=table.pk, user_id=request.user.pk),
        # Read once with the page, not on every frame: the history's chain head and the series dealing.
        "chain_head": records.chain_head(table.pk),
        "series": series.open_series(table_id=table.pk),
        "chat_lines": chat_ui.lines_html(
            chat.recent_messages(table_id=table.pk, viewer=request.user), reader_id=request.user.pk
        ),
        "chat_open": table.chat != ChatMode.OFF,
        "quick_phrases": [(key, _(words)) for key, words in chat.QUICK_PHRASES.items()],
        "seat_offer": _seat_offer(user=request.user, table=table),
        "invite_url": request.build_absolute_uri(reverse("invite", args=[table.invite_code]))
        if table.private and not table.policy.creator_only  # a table that is one player's: nobody to invite
        else None,
    }
    return render(request, "games/table.html", context)


def _seat_offer(*, user: User, table: Table) -> dict[str, int] | None:
    """The table's creator, not seated at it, is offered a seat and a buy-in at the top of the page:
    opening a table is meant to play at it (issue 35). None when there is nothing to offer."""
    if table.created_by_id != user.pk or not table.policy.open_seats or table.status != Table.Status.OPEN:
        return None
    rows = list(Seat.objects.filter(table=table).values_list("position", "user_id"))
    if any(user_id == user.pk for _position, user_id in rows):
        return None
    taken = {position for position, _user_id in rows}
    free = [p for p in range(table.seat_count) if p not in taken]
    if not free:
        return None
    balance = wallet_balance(user=user)
    buy_in = max(table.min_buy_in, min(table.default_buy_in, balance, table.max_buy_in))
    return {"position": free[0], "number": free[0] + 1, "buy_in": buy_in}


@login_required
@require_POST
def take_seat(request: HttpRequest, table_id: int) -> HttpResponse:
    """The seat offer's form: sit at the first free seat with the buy-in given, or say why not."""
    table = get_object_or_404(Table, pk=table_id)
    raw = request.POST.get("buy_in", "").strip()
    offer = _seat_offer(user=request.user, table=table)
    if offer is None:
        messages.warning(request, _("There is no seat to offer you here."))
    elif not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        messages.warning(request, _("The buy-in is a whole number of chips."))
    else:
        try:
            async_to_sync(service.table_sit)(
                user=request.user, table_id=table.pk, position=offer["position"], buy_in=int(raw)
            )
        except service.Refused as exc:
            messages.warning(request, str(exc))
    return redirect("table", table_id=table.pk)


def _initial_regions(*, table_id: int, user_id: int) -> SafeString | None:
    """The table as it is now, for the first paint; the socket sends the same on connecting."""
    try:
        state = async_to_sync(service.load_table_state)(table_id)
    except (StateError, service.Refused):
        log.exception("table %s: no initial state for the page", table_id)
        return None
    return render_regions(view=build_view(state.doc, user_id=user_id, version=state.version))


def _player_from_post(request: HttpRequest) -> User:
    raw = request.POST.get("user", "")
    player = User.objects.filter(pk=int(raw)).first() if raw.isascii() and raw.isdigit() else None
    if player is None:
        raise Http404("no such player")
    return player


def _back(request: HttpRequest, notice: str, *, error: bool = False) -> HttpResponse:
    """htmx asked (a chat line's button): nothing to swap, the socket updates the chat. A plain
    form: back where it came from, with the notice."""
    if request.htmx:
        return HttpResponse(status=400 if error else 204, content=notice if error else b"")
    (messages.error if error else messages.success)(request, notice)
    target = request.POST.get("next", "")
    # An https page goes on over https only (a next= over http:// would take it down).
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("ignored_players")
    return redirect(target)


@login_required
@require_POST
def ignore_player(request: HttpRequest) -> HttpResponse:
    """Hide a player's chat from this user at every table (the player is not told)."""
    player = _player_from_post(request)
    try:
        ignores.ignore_player(user=request.user, ignored=player)
    except ignores.IgnoreRefused as exc:
        return _back(request, str(exc), error=True)
    return _back(request, _("You no longer see %(name)s's messages.") % {"name": player.get_username()})


@login_required
@require_POST
def unignore_player(request: HttpRequest) -> HttpResponse:
    player = _player_from_post(request)
    ignores.unignore_player(user=request.user, ignored=player)
    return _back(request, _("You see %(name)s's messages again.") % {"name": player.get_username()})


@login_required
def ignored_players(request: HttpRequest) -> HttpResponse:
    """The players this user ignores, each with a button to see them again."""
    players = ignores.ignored_players(user=request.user)
    return render(request, "games/ignored_players.html", {"players": players})
