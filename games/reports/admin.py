"""The staff's side of reports and the chat, in the admin: the reports' queue and each report's
page (the message, the hand, the chat around it, and what to do about it), the chat's messages
(search, delete), the word filter's list and the chat mutes.

Every step goes through games.social.moderation, which checks the staff member's right again,
needs a reason, and writes the staff log; a page only hides what the service would refuse. A ban
goes through the accounts' own ban page, linked from the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts import staff_kinds as account_kinds
from accounts.admin import ReadOnlyAdmin
from accounts.admin_filters import player_filter, table_filter
from accounts.admin_paging import GrowingListAdmin
from accounts.forms import StaffForm
from accounts.services import active_ban, may
from accounts.staff_pages import staff_action_page, staff_log_link
from games import staff_kinds
from games.models import ChatMessage, ChatMute, ChatWord, PlayedHand, Report
from games.social import moderation
from games.social.refusals import Refused

Kind = staff_kinds
# The chat lines shown on each side of a reported message.
AROUND = 10


class ModerationForm(StaffForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy(
            "Recorded with your name in the staff log; when you close the report, it is its outcome."
        ),
    )
    close_too = forms.BooleanField(
        required=False, label=gettext_lazy("Also close the report, with this reason as its outcome")
    )


# The buttons of a report's page: (value, label, kind of staff action, minutes of a mute).
STEPS: tuple[tuple[str, str, str, int], ...] = (
    ("delete", gettext_lazy("Delete the message"), Kind.CHAT_DELETE, 0),
    ("mute-15", gettext_lazy("Mute in chat for 15 minutes"), Kind.CHAT_MUTE, 15),
    ("mute-60", gettext_lazy("Mute in chat for 1 hour"), Kind.CHAT_MUTE, 60),
    ("mute-1440", gettext_lazy("Mute in chat for 24 hours"), Kind.CHAT_MUTE, 24 * 60),
    ("close", gettext_lazy("Close the report"), Kind.REPORT_CLOSE, 0),
)


@dataclass(frozen=True)
class ReportContext:
    lines: list[ChatMessage]  # the chat at the table around the message (or the report's time)
    hand: PlayedHand | None  # the hand the message was said in


def report_context(report: Report) -> ReportContext:
    """What staff read beside a report: up to ``AROUND`` lines before and after it at its table,
    deleted ones included, and the stored hand the message belongs to. Three queries at most."""
    if report.table_id is None:
        return ReportContext(lines=[], hand=None)
    at_table = ChatMessage.objects.filter(table_id=report.table_id).select_related("user")
    if report.message_id is not None:
        before = at_table.filter(pk__lt=report.message_id).order_by("-pk")[:AROUND]
        after = at_table.filter(pk__gte=report.message_id).order_by("pk")[: AROUND + 1]
    else:
        before = at_table.filter(created_at__lte=report.created_at).order_by("-pk")[:AROUND]
        after = at_table.none()
    lines = sorted([*before, *after], key=lambda line: line.pk)
    hand = None
    if report.message is not None:
        hand = (
            PlayedHand.objects.filter(table_id=report.table_id, number=report.message.hand_number)
            .defer("record", "server_seed", "client_seeds")
            .first()
        )
    return ReportContext(lines=lines, hand=hand)


@admin.register(Report)
class ReportAdmin(GrowingListAdmin):
    list_display = ("created_at", "status", "reason", "reporter", "reported", "said", "table", "handled_by")
    list_filter = ("status", "reason", player_filter("reported"), table_filter("table_id"))
    list_select_related = ("reporter", "reported", "message", "table", "handled_by")
    search_fields = ("reported__username", "reporter__username", "text", "message__text")
    # Waiting ones first ("open" sorts after "closed"), the oldest of them at the top.
    ordering = ("-status", "created_at", "pk")

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # players make reports

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # a report stays, dealt with or not

    @admin.display(description=gettext_lazy("message"))
    def said(self, report: Report) -> str:
        if report.message is None:
            return "-"
        return Truncator(report.message.text).chars(60)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        """The report's own page: read it, then act on it (each step through its service)."""
        report = (
            Report.objects.select_related("reporter", "reported", "message__user", "table", "handled_by")
            .filter(pk=int(object_id))
            .first()
            if object_id.isdigit()
            else None
        )
        if report is None or not self.has_view_permission(request, report):
            return super().change_view(request, object_id, form_url, extra_context)
        form = ModerationForm(request.POST if request.method == "POST" else None)
        if request.method == "POST":
            step = request.POST.get("do", "")
            if form.is_valid():
                done = self._act(request, report, step=step, data=form.cleaned_data)
                if done is not None:
                    return done
            # An invalid form (no reason, say) is shown again with its message; nothing was done.
        return self._report_page(request, report, form=form)

    def _steps(self, request: HttpRequest, report: Report) -> list[tuple[str, str]]:
        """The buttons this staff member may press on this report now."""
        steps = []
        for value, label, kind, _minutes in STEPS:
            if not may(staff_user=request.user, kind=kind):
                continue
            if value == "delete" and (report.message is None or report.message.deleted_at is not None):
                continue
            if value == "close" and report.status != Report.Status.OPEN:
                continue
            steps.append((value, label))
        return steps

    def _report_page(self, request: HttpRequest, report: Report, *, form: ModerationForm) -> HttpResponse:
        shown = report_context(report)
        ban = active_ban(user=report.reported)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Report #%(number)s about %(user)s") % {"number": report.pk, "user": report.reported},
            "report": report,
            "lines": shown.lines,
            "hand": shown.hand,
            "form": form,
            "steps": self._steps(request, report),
            "mute": moderation.active_mute(user=report.reported),
            "ban": ban,
            "may_ban": ban is None and may(staff_user=request.user, kind=account_kinds.BAN),
            "other_reports": Report.objects.filter(reported_id=report.reported_id)
            .exclude(pk=report.pk)
            .count(),
            "staff_log": staff_log_link(user=report.reported),
            "picture": request.user.has_perm("accounts.view_user"),
        }
        status = 400 if form.is_bound else 200
        return TemplateResponse(request, "games/admin/report.html", context, status=status)

    def _act(self, request: HttpRequest, report: Report, *, step: str, data: dict) -> HttpResponse | None:
        chosen = next((s for s in STEPS if s[0] == step), None)
        if chosen is None:
            self.message_user(request, _("Choose what to do about the report."), messages.ERROR)
            return None
        _value, _label, kind, minutes = chosen
        reason, token = data["reason"], data["token"]
        try:
            if kind == Kind.CHAT_DELETE:
                if report.message_id is None:
                    raise Refused(_("This report names no message; nothing was changed."))
                moderation.delete_chat_message(
                    message=report.message_id, staff=request.user, reason=reason, token=f"{token}:delete"
                )
                done = _("The message is deleted: nobody sees it any more.")
            elif kind == Kind.CHAT_MUTE:
                mute = moderation.mute_in_chat(
                    user=report.reported,
                    staff=request.user,
                    minutes=minutes,
                    reason=reason,
                    token=f"{token}:mute",
                )
                until = timezone.localtime(mute.until)
                done = _("%(user)s is muted in chat until %(until)s.") % {
                    "user": report.reported,
                    "until": f"{until:%Y-%m-%d %H:%M}",
                }
            else:
                moderation.close_report(
                    report=report.pk, staff=request.user, outcome=reason, token=f"{token}:close"
                )
                done = _("The report is closed.")
        except Refused as refused:
            self.message_user(request, str(refused), messages.ERROR)
            return None
        self.message_user(request, done, messages.SUCCESS)
        if data.get("close_too") and kind != Kind.REPORT_CLOSE:
            try:
                moderation.close_report(
                    report=report.pk, staff=request.user, outcome=reason, token=f"{token}:close"
                )
            except Refused as refused:
                self.message_user(request, str(refused), messages.WARNING)
            else:
                self.message_user(request, _("The report is closed."), messages.SUCCESS)
        # Back to the page afresh: a new form (a new token), so Reload does not act again.
        return HttpResponseRedirect(request.path)


class ChatDeleteForm(StaffForm):
    pass


class ChatMuteForm(StaffForm):
    minutes = forms.TypedChoiceField(
        coerce=int,
        choices=[
            (15, gettext_lazy("15 minutes")),
            (60, gettext_lazy("1 hour")),
            (24 * 60, gettext_lazy("24 hours")),
        ],
        label=gettext_lazy("For how long"),
    )


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "at_table", "hand_number", "user", "text", "deleted_at", "deleted_by")
    list_filter = (
        table_filter("table_id"),
        player_filter("user"),
        ("deleted_at", admin.EmptyFieldListFilter),
    )
    list_select_related = ("table", "user", "deleted_by")
    search_fields = ("text", "user__username", "=table__id", "table__name")
    search_help_text = gettext_lazy("Words of a message, a player's name, a table's number or name.")
    actions = ["delete_messages", "mute_authors"]

    @admin.display(description=gettext_lazy("table"), ordering="table_id")
    def at_table(self, line: ChatMessage) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:games_table_change", args=[line.table_id]), line.table
        )

    def has_chat_delete_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.CHAT_DELETE)

    def has_chat_mute_permission(self, request: HttpRequest) -> bool:
        return may(staff_user=request.user, kind=Kind.CHAT_MUTE)

    @admin.action(
        description=gettext_lazy("Mute the authors of selected messages in chat (asks for how long and why)"),
        permissions=["chat_mute"],
    )
    def mute_authors(self, request: HttpRequest, queryset) -> HttpResponse | None:
        authors = sorted(
            {line.user for line in queryset.select_related("user") if line.user is not None},
            key=lambda user: user.get_username(),
        )
        form = ChatMuteForm(request.POST if "apply" in request.POST else None)
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Mute in chat"),
            intro=_(
                "Each player is kept out of the chat at every table for the time chosen; they still "
                "play. Recorded with your name and the reason in the staff log."
            ),
            targets=authors,
            summary=lambda data: [
                _("Mute %(user)s for %(minutes)s minutes.") % {"user": user, "minutes": data["minutes"]}
                for user in authors
            ],
            submit=_("Mute"),
            action="mute_authors",
            selected=queryset,
        )
        if page is not None:
            return page
        for user in authors:
            try:
                mute = moderation.mute_in_chat(
                    user=user,
                    staff=request.user,
                    minutes=form.cleaned_data["minutes"],
                    reason=form.cleaned_data["reason"],
                    token=f"{form.cleaned_data['token']}:{user.pk}",
                )
            except Refused as refused:
                self.message_user(request, f"{user}: {refused}", messages.WARNING)
            else:
                until = timezone.localtime(mute.until)
                self.message_user(
                    request,
                    _("%(user)s is muted in chat until %(until)s.")
                    % {"user": user, "until": f"{until:%Y-%m-%d %H:%M}"},
                    messages.SUCCESS,
                )
        return None

    @admin.action(
        description=gettext_lazy("Delete selected messages for everyone (asks for a reason)"),
        permissions=["chat_delete"],
    )
    def delete_messages(self, request: HttpRequest, queryset) -> HttpResponse | None:
        lines = list(queryset.filter(deleted_at__isnull=True).select_related("user", "table"))
        form = ChatDeleteForm(request.POST if "apply" in request.POST else None)
        page = staff_action_page(
            self,
            request,
            form=form,
            title=_("Delete chat messages"),
            intro=_(
                "Each message disappears from its table for everyone, at once; it stays here, marked "
                "deleted, with your name and the reason in the staff log."
            ),
            targets=[f"{line.user}: {line.text}" for line in lines]
            or [_("Nothing to do: the selected messages are deleted already.")],
            summary=lambda data: [
                ngettext("Delete %(count)s message.", "Delete %(count)s messages.", len(lines))
                % {"count": len(lines)}
            ],
            submit=_("Delete the messages"),
            action="delete_messages",
            selected=queryset,
        )
        if page is not None:
            return page
        deleted = 0
        for line in lines:
            try:
                moderation.delete_chat_message(
                    message=line.pk,
                    staff=request.user,
                    reason=form.cleaned_data["reason"],
                    token=f"{form.cleaned_data['token']}:{line.pk}",
                )
            except Refused as refused:
                self.message_user(request, f"#{line.pk}: {refused}", messages.WARNING)
            else:
                deleted += 1
        if deleted:
            self.message_user(
                request,
                ngettext("%(count)s message deleted.", "%(count)s messages deleted.", deleted)
                % {"count": deleted},
                messages.SUCCESS,
            )
        return None


class ChatWordForm(forms.ModelForm):
    class Meta:
        model = ChatWord
        fields = ("word",)

    def clean_word(self) -> str:
        word = self.cleaned_data["word"].strip()
        if not word or any(c.isspace() for c in word):
            raise forms.ValidationError(_("One word, without spaces."))
        return word.lower()


@admin.register(ChatWord)
class ChatWordAdmin(admin.ModelAdmin):
    form = ChatWordForm
    list_display = ("word", "created_at")
    search_fields = ("word",)


@admin.register(ChatMute)
class ChatMuteAdmin(ReadOnlyAdmin):
    """Mutes are made from a report's page (the service logs them); here, the list of them."""

    list_display = ("user", "until", "reason", "created_by", "created_at")
    list_filter = (player_filter("user"),)
    list_select_related = ("user", "created_by")
    search_fields = ("user__username", "reason")
