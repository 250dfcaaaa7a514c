"""Who may see a table: its page and its socket ask the same, and a private table the user may not
see answers like a missing one (the invite code is the secret)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.models import HandPlayer, Seat, Table, TableEvent


def can_view(*, user: User, table: Table, invited: bool) -> bool:
    """Who may open a table's page: anyone for a public table; for a private one, whoever has the
    invite (``invited``: they opened the invite link in this session), its creator, and its players."""
    if table.policy.creator_only:
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


def was_at_table(*, user: User, table: Table, session: Any) -> bool:
    """Whether the user may see what was said at a table (to report a line of its chat): whoever
    may open it now (``may_view_table``'s rule, the invite in the session too), and whoever sat or
    played there once. A player who left a private table has no seat there any more, yet heard
    what was said to them (issue 37: they got 404 when reporting it)."""
    invited = session is not None and table.pk in session.get(INVITES_SESSION_KEY, [])
    if can_view(user=user, table=table, invited=invited):
        return True
    if not user.is_authenticated:
        return False
    sat = TableEvent.objects.filter(table=table, user=user, kind=TableEvent.Kind.SAT)
    return sat.exists() or HandPlayer.objects.filter(hand__table=table, user=user).exists()
