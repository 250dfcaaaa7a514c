"""A player reports another player or one of their messages to the staff.

Plain forms (no JavaScript needed): a refusal re-shows the form with the service's message.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import ChatMessage
from games.reports.forms import ReportForm
from games.social import reports
from games.social.refusals import Refused
from games.tables.access import was_at_table

FORM = "reports/report.html"


def _player(username: str) -> User | None:
    return User.objects.filter(username=username, is_active=True).first()


def _missing(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "reports/missing.html", {"message": message}, status=404)


def _report_page(request: HttpRequest, *, form: ReportForm, reported: User, line: ChatMessage | None):
    status = 400 if form.is_bound else 200
    return render(request, FORM, {"form": form, "reported": reported, "line": line}, status=status)


def _thanks(request: HttpRequest, *, reported: User) -> HttpResponse:
    return render(request, "reports/thanks.html", {"reported": reported})


@login_required
def report_player(request: HttpRequest, username: str) -> HttpResponse:
    reported = _player(username)
    if reported is None:
        return _missing(request, _("There is no such player."))
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            reports.report_player(
                reporter=request.user,
                reported=reported,
                reason=form.cleaned_data["reason"],
                text=form.cleaned_data["text"],
            )
        except Refused as refused:
            form.add_error(None, str(refused))
        else:
            return _thanks(request, reported=reported)
    return _report_page(request, form=form, reported=reported, line=None)


@login_required
def report_message(request: HttpRequest, message_id: int) -> HttpResponse:
    line = reports.message_to_report(message_id=message_id)
    # A line at a table the player may not open, and never sat at, is answered like a missing one.
    if line is None or not was_at_table(user=request.user, table=line.table, session=request.session):
        return _missing(request, _("There is no such message, or it was deleted."))
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            reports.report_message(
                reporter=request.user,
                message=line.pk,
                reason=form.cleaned_data["reason"],
                text=form.cleaned_data["text"],
            )
        except Refused as refused:
            form.add_error(None, str(refused))
        else:
            return _thanks(request, reported=line.user)
    return _report_page(request, form=form, reported=line.user, line=line)
