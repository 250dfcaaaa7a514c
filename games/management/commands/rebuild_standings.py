"""Count the leaderboards' and player pages' figures afresh from the stored hands."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.standings.rebuild import rebuild_standings, standings_differences


class Command(BaseCommand):
    help = "Rebuild the standings (leaderboards, player pages) from the stored hands."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="only compare the summary with a fresh count; exit 1 if they differ (nothing written)",
        )

    def handle(self, *args: object, check: bool = False, **options: object) -> None:
        if check:
            count, words = standings_differences()
            for line in words:
                self.stdout.write(line)
            if count:
                raise CommandError(
                    f"{count} standings differ from the stored hands: rebuild_standings puts them right"
                )
            self.stdout.write("OK: the standings match the stored hands")
            return
        written = rebuild_standings()
        self.stdout.write(f"standings rebuilt: {written} rows")
