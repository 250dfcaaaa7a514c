"""Staff forms used by the admin: a reason for every action, an amount for a wallet adjustment.

Each form carries a token naming it (a hidden field, and for a page of its own also the page's
address): the staff log keeps tokens unique, so a form sent twice acts once.
"""

from __future__ import annotations

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.ledger.posting import MAX_AMOUNT
from accounts.staff_log.log import MAX_TOKEN_LENGTH


def new_token() -> str:
    return uuid.uuid4().hex


class StaffForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=_("Reason"),
        help_text=_("Recorded with your name in the staff log."),
    )
    token = forms.CharField(widget=forms.HiddenInput, max_length=MAX_TOKEN_LENGTH)

    def __init__(self, *args, token: str | None = None, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("token", token or new_token())
        super().__init__(*args, **kwargs)


class BanForm(StaffForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=_("Reason"),
        help_text=_("Recorded with the ban and shown to the user when they try to log in."),
    )


class LiftBanForm(StaffForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=_("Reason"),
        help_text=_("Why the ban ends: recorded with the ban and in the staff log."),
    )


class WalletAdjustForm(StaffForm):
    amount = forms.IntegerField(
        min_value=-MAX_AMOUNT,
        max_value=MAX_AMOUNT,
        label=_("Amount"),
        help_text=_("Chips to add (positive) or remove (negative), from or to the house."),
    )
    field_order = ["amount", "reason"]

    def clean_amount(self) -> int:
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError(_("The amount must not be zero."))
        return amount
