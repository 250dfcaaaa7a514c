"""List filters for staff pages that a name or a number is typed into (a player, a table).

A choice list of every player or table would be one query and one link per row of the room; a
box filters with one indexed lookup whatever the number of rows.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.models import User


class TextFilter(admin.SimpleListFilter):
    template = "admin/text_filter.html"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return []

    def has_output(self) -> bool:
        return True

    def choices(self, changelist) -> Any:
        # The other filters and the search stay as they are when this box is sent.
        others = [
            (key, value) for key, value in changelist.params.items() if key not in {self.parameter_name, "p"}
        ]
        yield {
            "selected": self.value() is not None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": _("All"),
            "others": others,
        }


def player_filter(path: str) -> type[TextFilter]:
    """A box for a player's username (any case) or number, filtering ``path`` (a user relation)."""

    class PlayerFilter(TextFilter):
        title = _("player (name or number)")
        parameter_name = "player"

        def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
            value = (self.value() or "").strip()
            if not value:
                return queryset
            if "\x00" in value:  # no name holds one, and PostgreSQL refuses it in a query
                return queryset.none()
            match = Q(username__iexact=value)
            if value.isdigit() and len(value) <= 18:
                match |= Q(pk=int(value))
            # The players first, then their rows by the indexed column: a condition on the user's
            # name through the join made PostgreSQL read every row of the list to find theirs.
            players = list(User.objects.filter(match).values_list("pk", flat=True)[:10])
            return queryset.filter(**{f"{path}__in": players})

    return PlayerFilter


def table_filter(path: str) -> type[TextFilter]:
    """A box for a table's number, filtering ``path`` (a table relation or a table id column)."""

    class TableFilter(TextFilter):
        title = _("table (number)")
        parameter_name = "table"

        def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
            value = (self.value() or "").strip().lstrip("#")
            if not value:
                return queryset
            if not value.isdigit() or len(value) > 10:
                return queryset.none()
            return queryset.filter(**{path: int(value)})

    return TableFilter
