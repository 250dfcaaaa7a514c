"""The sign-up form: allauth's, with the 18+ confirmation responsible play asks for (issue 36)."""

from __future__ import annotations

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy


def _adult_help() -> SafeString:
    return format_html(
        '{} <a href="{}">{}</a>',
        gettext("Play money is still time and habit."),
        reverse("responsible_play"),
        gettext("Responsible play: the tools and where to find help"),
    )


class SignupForm(AllauthSignupForm):
    adult = forms.BooleanField(
        required=True,
        label=gettext_lazy("I am 18 or older"),
        # Lazy: the link and words are made per request, in its language.
        help_text=lazy(_adult_help, SafeString)(),
        error_messages={"required": gettext_lazy("You must be 18 or older to play here.")},
    )
