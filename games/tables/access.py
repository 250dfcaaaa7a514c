"""Who may see a table: its page and its socket ask the same, and a private table the user may not
see answers like a missing one (the invite code is the secret)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.models import Seat, Table


def can_view(*, user: User, table: Table, invited: bool) -> bool:
    """Who may open a table's page: anyone for a public table; for a private one, whoever has the
    invite (``invited``: they opened the invite link in this session), its creator, and its players."""
    if table.practice:
        return bool(user.is_authenticated and table.created_by_id == user.pk)
    if not table.private or invited:
        return True
    return bool(
        user.is_authenticated
        and (table.created_by_id == user.pk or Seat.objects.filter(table=table, user=user).exists())
    )


INVITES_SESSION_KEY = "invited_tables"  # table ids whose invite link this session opened


def may_view_table(*, user: User, table_id: int, session: Any) -> bool:
    """``can_view`` for a socket: the invite is remembered in the session by the invite view.
    A missing table and a private one the user may not see answer the same: False."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return False
    invited = session is not None and table.pk in session.get(INVITES_SESSION_KEY, [])
    return can_view(user=user, table=table, invited=invited)
