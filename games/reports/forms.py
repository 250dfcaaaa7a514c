"""The report form: a reason from the list and optional details."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import Report
from games.models.social import REPORT_TEXT_MAX_LENGTH


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        choices=Report.Reason.choices,
        widget=forms.RadioSelect,
        label=_("What is wrong?"),
        error_messages={
            "required": _("Choose a reason for the report."),
            "invalid_choice": _("Choose a reason for the report."),
        },
    )
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 50, "maxlength": REPORT_TEXT_MAX_LENGTH}),
        required=False,
        strip=True,
        label=_("Details (optional)"),
        help_text=_("Up to %(limit)s characters: what happened, when, at which table.")
        % {"limit": REPORT_TEXT_MAX_LENGTH},
        # Checked by the service, which says how long the text was.
    )
