"""Who may open the room's staff pages: each page checks it, and the admin's index asks the same
before it links one, so a link and its page agree on who may."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User

# The room's tables, seats and chips: what the dashboard shows.
DASHBOARD_RIGHTS = ("games.view_table", "accounts.view_ledgeraccount")
# Players and their hands: what the patterns point at.
PATTERNS_RIGHTS = ("games.view_playedhand", "accounts.view_user")


def room_pages(user: User) -> list[tuple[str, str]]:
    """The pages of this part ``user`` may open, for the admin's index."""
    pages = []
    if user.has_perms(DASHBOARD_RIGHTS):
        pages.append((reverse("oversight:dashboard"), _("The room now")))
    if user.has_perms(PATTERNS_RIGHTS):
        pages.append((reverse("oversight:patterns"), _("Patterns worth a look")))
    return pages
