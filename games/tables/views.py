"""The table page: the table as it is now, for the first paint; its socket (consumers.py) sends the
same regions (ui/regions.py) on every change, from the view built for this viewer only.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.safestring import SafeString

from games.live import records, series, service
from games.live.store import StateError
from games.live.views import build_view
from games.models import Table
from games.tables.access import INVITES_SESSION_KEY, can_view
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
