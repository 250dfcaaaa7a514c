"""The friends page and its forms, and the notices every page of a signed-in player asks for
(static/js/friends.js). Thin views over games/social/friends.py."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from games.models import Table
from games.social import friends, ignores


def _named(request: HttpRequest, field: str = "user") -> User | None:
    """The player a form names (by name: the request form's field is typed), or None."""
    name = request.POST.get(field, "").strip()
    if not name or len(name) > 150:
        return None
    return User.objects.filter(username__iexact=name).first()


def _back(request: HttpRequest, notice: str, *, error: bool = False) -> HttpResponse:
    (messages.error if error else messages.success)(request, notice)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("friends")
    return redirect(target)


@login_required
def friends_page(request: HttpRequest) -> HttpResponse:
    page = friends.friends_page(user=request.user)
    return render(request, "players/friends.html", {"page": page})


def _action(request: HttpRequest, do: Callable[[User | None], object], done: str) -> HttpResponse:
    other = _named(request)
    try:
        do(other)
    except friends.FriendRefused as exc:
        return _back(request, str(exc), error=True)
    assert other is not None  # the services refuse an unknown player
    return _back(request, done % {"name": other.get_username()})


@login_required
@require_POST
def send_request(request: HttpRequest) -> HttpResponse:
    other = _named(request)
    try:
        row = friends.send_request(user=request.user, to=other)
    except friends.FriendRefused as exc:
        return _back(request, str(exc), error=True)
    assert other is not None
    name = {"name": other.get_username()}
    if row.status == row.Status.FRIENDS:  # they had asked first: now friends
        return _back(request, _("%(name)s had asked you too: you are friends now.") % name)
    return _back(request, _("Friend request sent to %(name)s.") % name)


@login_required
@require_POST
def accept(request: HttpRequest) -> HttpResponse:
    return _action(
        request,
        lambda other: friends.accept(user=request.user, requester=other),
        _("You and %(name)s are friends now."),
    )


@login_required
@require_POST
def decline(request: HttpRequest) -> HttpResponse:
    return _action(
        request,
        lambda other: friends.decline(user=request.user, requester=other),
        _("You declined %(name)s's request."),
    )


@login_required
@require_POST
def cancel(request: HttpRequest) -> HttpResponse:
    return _action(
        request,
        lambda other: friends.cancel(user=request.user, to=other),
        _("You withdrew your request to %(name)s."),
    )


@login_required
@require_POST
def remove(request: HttpRequest) -> HttpResponse:
    return _action(
        request,
        lambda other: friends.remove(user=request.user, friend=other),
        _("%(name)s is no longer your friend."),
    )


@login_required
@require_POST
def block(request: HttpRequest) -> HttpResponse:
    other = _named(request)
    if other is None or other.computer_level:
        return _back(request, _("There is no such player."), error=True)
    try:
        ignores.ignore_player(user=request.user, ignored=other)
    except ignores.IgnoreRefused as exc:
        return _back(request, str(exc), error=True)
    return _back(
        request,
        _("You blocked %(name)s: no chat, requests or invitations from them.")
        % {"name": other.get_username()},
    )


@login_required
@require_POST
def unblock(request: HttpRequest) -> HttpResponse:
    other = _named(request)
    if other is None or not ignores.unignore_player(user=request.user, ignored=other):
        return _back(request, _("That player is not blocked."), error=True)
    return _back(request, _("You unblocked %(name)s.") % {"name": other.get_username()})


@login_required
@require_POST
def invite(request: HttpRequest) -> HttpResponse:
    other = _named(request)
    raw = request.POST.get("table", "")
    table = Table.objects.filter(pk=int(raw)).first() if raw.isascii() and raw.isdigit() else None
    try:
        friends.invite(user=request.user, friend=other, table=table)
    except friends.FriendRefused as exc:
        return _back(request, str(exc), error=True)
    assert other is not None and table is not None
    return _back(
        request,
        _("%(name)s is invited to %(table)s.") % {"name": other.get_username(), "table": table.name},
    )


def invitation_link(invitation: friends.Invitation) -> str:
    """Where an invitation leads: the table, through its invite link when it is private."""
    if invitation.private:
        return reverse("invite", args=[invitation.invite_code])
    return reverse("table", args=[invitation.table_id])


@login_required
@require_GET
def notices(request: HttpRequest) -> JsonResponse:
    """What waits for the player, for every page's notices region (static/js/friends.js); it also
    keeps the player shown online to their friends."""
    friends.mark_seen(user=request.user)
    waiting = friends.notices(user=request.user)
    items = [
        {
            "id": invitation.id,
            "text": _("%(name)s invites you to the table %(table)s.")
            % {"name": invitation.sender, "table": invitation.table_name},
            "url": reverse("friend_invitation", args=[invitation.id]),
        }
        for invitation in waiting.invitations
    ]
    html = render_to_string(
        "players/_friend_notices.html", {"items": items, "requests": waiting.requests}, request=request
    )
    return JsonResponse({"invitations": items, "requests": waiting.requests, "html": html})


@login_required
@require_GET
def follow(request: HttpRequest, pk: int) -> HttpResponse:
    """An invitation's link: put it away and go to its table."""
    invitation = friends.follow(user=request.user, invitation_id=pk)
    if invitation is None:
        messages.error(request, _("This invitation is no longer open."))
        return redirect("friends")
    return redirect(invitation_link(invitation))


@login_required
@require_POST
def dismiss(request: HttpRequest, pk: int) -> HttpResponse:
    """The recipient puts an invitation away; following its link does so too (``follow``)."""
    try:
        friends.dismiss(user=request.user, invitation_id=pk)
    except friends.FriendRefused as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)
