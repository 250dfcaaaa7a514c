"""Forms of the lobby. The table's limits are the model's (RULES.md §3); the form adds clear wording."""

from __future__ import annotations

from django import forms

from games.models import MAX_SEATS, MIN_SEATS, STAKES, Table

TURN_SECONDS_MIN, TURN_SECONDS_MAX = 5, 120


class TableForm(forms.ModelForm):
    name = forms.CharField(
        max_length=60,
        required=False,
        help_text="Optional; shown in the lobby.",
        widget=forms.TextInput(attrs={"placeholder": "e.g. Friday svara"}),
    )
    stake = forms.TypedChoiceField(
        choices=[(s, f"{s:,}") for s in STAKES],
        coerce=int,
        initial=STAKES[0],
        help_text="The ante; buy-in is 20 to 100 stakes.",
        error_messages={"invalid_choice": "Choose a stake of 10, 50, 200 or 1,000."},
    )
    seat_count = forms.TypedChoiceField(
        label="Seats",
        choices=[(n, str(n)) for n in range(MIN_SEATS, MAX_SEATS + 1)],
        coerce=int,
        initial=MIN_SEATS,
        error_messages={"invalid_choice": f"A table has {MIN_SEATS} to {MAX_SEATS} seats."},
    )
    dark_play = forms.BooleanField(label="Dark play", required=False, initial=True)
    turn_seconds = forms.IntegerField(
        label="Turn time (seconds)",
        min_value=TURN_SECONDS_MIN,
        max_value=TURN_SECONDS_MAX,
        initial=30,
        error_messages={
            "min_value": f"The turn time is at least {TURN_SECONDS_MIN} seconds.",
            "max_value": f"The turn time is at most {TURN_SECONDS_MAX} seconds.",
            "invalid": "The turn time is a whole number of seconds.",
            "required": "Give a turn time in seconds (30 is usual).",
        },
    )
    private = forms.BooleanField(
        label="Private (joined by invite link)", required=False, help_text="Not listed in the lobby."
    )

    class Meta:
        model = Table
        fields = ["name", "stake", "seat_count", "dark_play", "turn_seconds", "private"]
