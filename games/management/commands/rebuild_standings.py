"""Count the leaderboards' and player pages' figures afresh from the stored hands."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.standings.rebuild import rebuild_standings


class Command(BaseCommand):
    help = "Rebuild the standings (leaderboards, player pages) from the stored hands."

    def handle(self, *args: object, **options: object) -> None:
        written = rebuild_standings()
        self.stdout.write(f"standings rebuilt: {written} rows")
