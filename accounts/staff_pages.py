"""The two pages every staff action goes through in the admin: its form (the reason, an amount),
then a confirmation page saying what will happen; only the confirmation acts.

An action on a list (the users, the tables, the seats) posts its form back to the list with the
selection in hidden fields, as Django's own delete confirmation does. An action on one player has
a page of its own whose address names its form (``?token=``): going Back to it shows the same
form, which the staff log then knows was sent, instead of a fresh one that would act again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode

from accounts.forms import new_token
from accounts.models import User
from accounts.staff_log.log import action_of_token, already_done

TEMPLATE = "accounts/admin/staff_action.html"


# ---------------------------------------------------------------- other parts' staff pages


@dataclass(frozen=True)
class PlayerLink:
    """A button on a player's staff page to another part's page about them (the games app's
    whole picture, their hands...), registered by that part: accounts names no other app's pages
    or permissions."""

    url: Callable[[int], str]  # the page's address, from the player's id
    label: Any  # a lazily translated string
    permission: str | None = None  # "app.codename" the staff member needs (None: any staff)
    first: bool = False  # before the accounts app's own buttons (else after them)


_PLAYER_LINKS: list[PlayerLink] = []
_TABLE_PAGE: list[Callable[[int], str]] = []


def add_player_links(*links: PlayerLink) -> None:
    """Register buttons for the player's staff page (once each: a repeat changes nothing)."""
    _PLAYER_LINKS.extend(link for link in links if link not in _PLAYER_LINKS)


def player_links(*, staff_user: Any, user_id: int, first: bool) -> list[tuple[str, str]]:
    """The registered buttons (the first ones, or the rest) this staff member may follow."""
    return [
        (link.url(user_id), link.label)
        for link in _PLAYER_LINKS
        if link.first == first and (link.permission is None or staff_user.has_perm(link.permission))
    ]


def set_table_page(url: Callable[[int], str]) -> None:
    """Where the staff log links a table's number (the part that has tables says)."""
    _TABLE_PAGE[:] = [url]


def table_page(table_id: int) -> str | None:
    """The staff page of table ``table_id``; None while no part registered one."""
    return _TABLE_PAGE[0](table_id) if _TABLE_PAGE else None


def staff_action_page(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    *,
    form: forms.Form,
    title: str,
    intro: str,
    targets: Iterable[Any] = (),
    summary: Callable[[dict[str, Any]], Sequence[str]],
    submit: str,
    action: str | None = None,
    selected: Iterable[Any] = (),
) -> HttpResponse | None:
    """The page to show, or None once a valid form was confirmed: then the caller acts.

    ``summary`` turns the cleaned data into the lines of the confirmation page. With ``action``,
    the pages post back to the list as that admin action on ``selected``.
    """
    valid = form.is_bound and form.is_valid()
    if valid and "confirm" in request.POST:
        return None
    confirming = valid and "edit" not in request.POST
    context = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.model._meta,
        "title": title,
        "intro": intro,
        "targets": list(targets),
        "form": form,
        "confirming": confirming,
        "summary": summary(form.cleaned_data) if confirming else [],
        "submit": submit,
        "action": action,
        "selected": [obj.pk for obj in selected],
    }
    return TemplateResponse(request, TEMPLATE, context)


def form_token(request: HttpRequest) -> str | None:
    """The token in the address of an action's own page (None: the page was opened afresh)."""
    token = request.GET.get("token", "")
    return token if token.isalnum() and len(token) <= 64 else None


def with_new_token(request: HttpRequest) -> HttpResponseRedirect:
    """Open the page again with a token of its own in the address."""
    return HttpResponseRedirect(f"{request.path}?{urlencode({'token': new_token()})}")


def refuse_if_sent(
    modeladmin: admin.ModelAdmin, request: HttpRequest, *, log_token: str, back_to: str
) -> HttpResponseRedirect | None:
    """A form already acted on is not shown or acted on again: say so and go ``back_to``."""
    done = action_of_token(log_token)
    if done is None:
        return None
    modeladmin.message_user(request, str(already_done(done)), messages.WARNING)
    return HttpResponseRedirect(back_to)


def staff_log_link(*, user: User | None = None, table_id: int | None = None) -> str:
    """The staff log filtered to one player or one table (linked from the pages they concern)."""
    query = {"user__id__exact": user.pk} if user is not None else {"table_id": table_id}
    return f"{reverse('admin:accounts_staffaction_changelist')}?{urlencode(query)}"
