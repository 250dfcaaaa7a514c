"""Staff lists that cost the same at a million rows as at ten: no full counts.

Django's change list counts every row of the list (and, filtered, of the whole table) on each
page: a sequential scan of a million hands or ledger entries for a number nobody needs exactly.
These lists count up to a cap instead, which an index on the list's order serves in a few
milliseconds; past it the list says "1,000" and pages up to there (a search or a filter narrows it).
"""

from __future__ import annotations

from django.contrib import admin
from django.core.paginator import Paginator
from django.utils.functional import cached_property

# The most rows a staff list counts: 10 pages of 100 rows (a count of 10,000 rows of a player's
# hands took 30 ms; a filter, a date or a search narrows a list to what staff look for).
COUNT_CAP = 1_000


class CappedCountPaginator(Paginator):
    """A paginator whose count stops at COUNT_CAP rows."""

    @cached_property
    def count(self) -> int:
        # Unordered: the first rows found are as good as the first in the list's order.
        return int(self.object_list.order_by()[:COUNT_CAP].count())


class GrowingListAdmin(admin.ModelAdmin):
    """A change list for a table that grows with play: capped count, no full count beside it."""

    paginator = CappedCountPaginator
    show_full_result_count = False
