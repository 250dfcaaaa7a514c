"""Hand history pages: "My hands", a hand replayed step by step, its hand file.

Thin views over ``games.history.service``. Every step is its own URL (``?step=k``) that works without
JavaScript; htmx requests for a step get just the replay fragment.
"""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext

from games.history import service as history


@login_required
def my_hands(request: HttpRequest) -> HttpResponse:
    form, filters = history.filters_from(data=request.GET)
    page = history.hands_page(
        user=request.user,
        filters=filters,
        older_than=request.GET.get("older_than"),
        newer_than=request.GET.get("newer_than"),
    )
    # Page links keep the filters: the query string without where the page starts.
    query = request.GET.copy()
    for key in ("page", "older_than", "newer_than"):
        query.pop(key, None)
    return render(
        request,
        "history/hands.html",
        {
            "form": form,
            "page": page,
            "filter_query": query.urlencode(),
            "filtered": filters != history.HandFilters(),
        },
    )


def _viewing_or_404(request: HttpRequest, pk: int) -> history.Viewing:
    found = history.viewing(pk=pk, user=request.user)
    if found is None:
        # The same answer for "no such hand", "not yours" and "still in play": nothing to learn.
        raise Http404("no such hand")
    return found


@login_required
def hand_page(request: HttpRequest, pk: int) -> HttpResponse:
    seen = _viewing_or_404(request, pk)
    hand = seen.hand
    replay_error = ""
    try:
        steps = history.replay_steps(record=hand.record, seat=seen.seat)
    except history.ReplayError as exc:
        steps = []
        # A cancelled hand stored no deal (an empty record): nothing went wrong. Any other record
        # that does not replay is a fault the page names (replay_steps has logged it).
        if hand.record:
            replay_error = str(exc)
    context: dict[str, object] = {
        "hand": hand,
        "table": hand.table,
        "row": seen.row,
        "spectator": seen.seat is None,
        "step_url": reverse("hand_replay", args=[hand.pk]),
        "fair_url": reverse("fair_deck") + f"?hand={hand.table_id}-{hand.number}",
        "revealed": history.is_revealed(hand),
        "checkable_by": history.checkable_by(hand),
        "record": hand.record if isinstance(hand.record, dict) else {},
        "replay_error": replay_error,
    }
    if steps:
        # Only the asked-for step goes to the template: no later step, no deck.
        index = history.step_index(raw=request.GET.get("step"), count=len(steps))
        step = steps[index]
        context.update(
            step=step,
            last_index=len(steps) - 1,
            prev_index=index - 1,
            next_index=index + 1,
            outcomes=history.outcomes(record=hand.record, last=step) if step.finished else [],
        )
    template = "history/_replay.html" if request.htmx and steps else "history/hand.html"
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


@login_required
def hand_file(request: HttpRequest, pk: int) -> HttpResponse:
    # The stored record holds every deck and so every player's cards, folded ones included: it is
    # handed out only once the hand's seed series is revealed, when anyone can recompute the decks.
    seen = _viewing_or_404(request, pk)
    hand = seen.hand
    if not history.is_revealed(hand):
        message = gettext(
            "This hand's file, with its decks, is available once its seed series ends (the last "
            "player leaves the table, or 24 hours after the series' first hand). Until then its "
            "folded cards stay secret."
        )
        return HttpResponse(message + "\n", status=403, content_type="text/plain; charset=utf-8")
    body = json.dumps(hand.record, ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="svara-hand-{hand.table_id}-{hand.number}.json"'
    return response
