"""``{% room_pages user as pages %}``: the room's own staff pages this user may open (the admin's
index links them), asked of the pages themselves so a link and its page agree on who may."""

from __future__ import annotations

from django import template

from accounts.models import User
from games.oversight.access import room_pages as pages_for

register = template.Library()


@register.simple_tag
def room_pages(user: User) -> list[tuple[str, str]]:
    return pages_for(user)
