"""Forms of the lobby. The table's limits are the model's (RULES.md §3); the form adds clear wording."""

from __future__ import annotations

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from games.models import MAX_SEATS, MIN_SEATS, STAKES, ChatMode, Table

TURN_SECONDS_MIN, TURN_SECONDS_MAX = 5, 120


class TableForm(forms.ModelForm):
    name = forms.CharField(
        max_length=60,
        required=False,
        label=_("Name"),
        help_text=_("Optional; shown in the lobby."),
        widget=forms.TextInput(attrs={"placeholder": _("e.g. Friday svara")}),
    )
    stake = forms.TypedChoiceField(
        choices=[(s, f"{s:,}") for s in STAKES],
        coerce=int,
        initial=STAKES[0],
        label=_("Stake"),
        help_text=_("The ante; buy-in is 20 to 100 stakes."),
        error_messages={"invalid_choice": _("Choose a stake of 10, 50, 200 or 1,000.")},
    )
    seat_count = forms.TypedChoiceField(
        label=_("Seats"),
        choices=[(n, str(n)) for n in range(MIN_SEATS, MAX_SEATS + 1)],
        coerce=int,
        initial=MIN_SEATS,
        error_messages={
            "invalid_choice": format_lazy(
                _("A table has {low} to {high} seats."), low=MIN_SEATS, high=MAX_SEATS
            )
        },
    )
    dark_play = forms.BooleanField(label=_("Dark play"), required=False, initial=True)
    turn_seconds = forms.IntegerField(
        label=_("Turn time (seconds)"),
        min_value=TURN_SECONDS_MIN,
        max_value=TURN_SECONDS_MAX,
        initial=30,
        error_messages={
            "min_value": format_lazy(
                _("The turn time is at least {seconds} seconds."), seconds=TURN_SECONDS_MIN
            ),
            "max_value": format_lazy(
                _("The turn time is at most {seconds} seconds."), seconds=TURN_SECONDS_MAX
            ),
            "invalid": _("The turn time is a whole number of seconds."),
            "required": _("Give a turn time in seconds (30 is usual)."),
        },
    )
    private = forms.BooleanField(
        label=_("Private (joined by invite link)"), required=False, help_text=_("Not listed in the lobby.")
    )
    chat = forms.ChoiceField(
        label=_("Chat"),
        choices=ChatMode.choices,
        required=False,  # a form sent without it (an older page) opens the table with chat for everyone
        initial=ChatMode.EVERYONE,
        help_text=_("Who may talk at the table."),
        error_messages={"invalid_choice": _("Choose who may chat: everyone, players only, or off.")},
    )

    class Meta:
        model = Table
        fields = ["name", "stake", "seat_count", "dark_play", "turn_seconds", "private", "chat"]
