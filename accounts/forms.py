"""Staff forms used by the admin: a ban's reason, a wallet adjustment."""

from __future__ import annotations

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.services.posting import MAX_AMOUNT


class BanForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        label=_("Reason"),
        help_text=_("Recorded with the ban and shown to the user when they try to log in."),
    )


class WalletAdjustForm(forms.Form):
    amount = forms.IntegerField(
        min_value=-MAX_AMOUNT,
        max_value=MAX_AMOUNT,
        label=_("Amount"),
        help_text=_("Chips to add (positive) or remove (negative), from or to the house."),
    )
    reason = forms.CharField(
        label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=1000
    )
    # Generated when the form is shown: submitting the same page twice adjusts once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=100)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {}).setdefault("idempotency_key", f"adjust:{uuid.uuid4().hex}")
        super().__init__(*args, **kwargs)

    def clean_amount(self) -> int:
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError(_("The amount must not be zero."))
        return amount
