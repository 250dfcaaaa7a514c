"""The staff's pages of the room as a whole, inside the admin (its log-in, header and language):
the room now (polled by htmx every few seconds) and the patterns worth a look, with the hands two
players shared. Read-only; each needs view rights, checked here whatever link led to it."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from games.oversight import dashboard
from games.oversight.access import DASHBOARD_RIGHTS, PATTERNS_RIGHTS
from games.oversight.patterns import DAYS, Patterns, hands_together, patterns_worth_a_look, window_days

POLL_SECONDS = 10
PATTERNS_SECONDS = 60  # the lists read a window of hands: computed at most once a minute
PATTERNS_KEY = "oversight:patterns:{days}"


def _require(request: HttpRequest, rights: tuple[str, ...]) -> None:
    if not request.user.has_perms(rights):
        raise PermissionDenied


def _figures() -> dict[str, object]:
    return {"room": dashboard.room_now(), "audit": dashboard.chip_audit(), "every": POLL_SECONDS}


def room_dashboard(request: HttpRequest) -> HttpResponse:
    _require(request, DASHBOARD_RIGHTS)
    context = {
        **admin.site.each_context(request),
        "title": _("The room now"),
        "may_see_patterns": request.user.has_perms(PATTERNS_RIGHTS),
        **_figures(),
    }
    return TemplateResponse(request, "games/admin/room.html", context)


def room_dashboard_figures(request: HttpRequest) -> HttpResponse:
    """The figures alone: what the page polls."""
    _require(request, DASHBOARD_RIGHTS)
    return TemplateResponse(request, "games/admin/_room_now.html", _figures())


def _patterns(days: int) -> Patterns:
    return cache.get_or_set(
        PATTERNS_KEY.format(days=days), lambda: patterns_worth_a_look(days=days), PATTERNS_SECONDS
    )


def patterns_page(request: HttpRequest) -> HttpResponse:
    _require(request, PATTERNS_RIGHTS)
    days = window_days(request.GET.get("days"))
    context = {
        **admin.site.each_context(request),
        "title": _("Patterns worth a look"),
        "found": _patterns(days),
        "days_choices": DAYS,
    }
    return TemplateResponse(request, "games/admin/patterns.html", context)


def hands_together_page(request: HttpRequest, a_id: int, b_id: int) -> HttpResponse:
    _require(request, PATTERNS_RIGHTS)
    days = window_days(request.GET.get("days"))
    people = {user.pk: user for user in User.objects.filter(pk__in=[a_id, b_id])}
    missing = [pk for pk in (a_id, b_id) if pk not in people]
    if missing or a_id == b_id:
        if missing:
            message = _("There is no player #%(number)s; nothing was changed.") % {"number": missing[0]}
        else:
            message = _("A pair is two different players.")
        messages.error(request, message)
        return HttpResponseRedirect(reverse("oversight:patterns"))
    a, b = people[a_id], people[b_id]
    context = {
        **admin.site.each_context(request),
        "title": _("Hands %(a)s and %(b)s played together") % {"a": a, "b": b},
        "a": a,
        "b": b,
        "days": days,
        "rows": hands_together(a_id=a_id, b_id=b_id, days=days),
    }
    return TemplateResponse(request, "games/admin/hands_together.html", context)
