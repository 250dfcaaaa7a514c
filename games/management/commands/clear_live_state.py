"""``python manage.py clear_live_state --yes``: delete every Redis key of this room's prefix
(``LIVE_STATE_PREFIX``: the tables in play, their deadlines, the channel layer, the cache, the
worker's lease), for a restore (deploy/restore.py), with the room stopped.

Hands in play live only in Redis and money only in PostgreSQL: after the database goes back to a
backup, a hand Redis still held would stay "in play" for good or pay players from a state the
database never saw. With the prefix empty, each table is rebuilt from the restored database on
first use (docs/architecture.md, "Losing it is safe"). Keys of other prefixes (another room on the
same Redis) are not touched."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.live.redis_target import sync_client

BATCH = 500


class Command(BaseCommand):
    help = "Delete this room's keys in Redis (LIVE_STATE_PREFIX), for a restore with the room stopped."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--yes", action="store_true", help="really delete (else: count only)")

    def handle(self, *args, **options) -> None:
        if not settings.REDIS_URL:
            self.stdout.write("no REDIS_URL: the room keeps its tables in memory; nothing to clear")
            return
        prefix = settings.LIVE_STATE_PREFIX
        if not prefix:
            raise CommandError("LIVE_STATE_PREFIX is empty: that would be every key of this Redis")
        client = sync_client(settings.REDIS_URL)
        found = deleted = 0
        batch: list[bytes] = []
        for key in client.scan_iter(match=f"{_escape(prefix)}*", count=BATCH):
            found += 1
            batch.append(key)
            if options["yes"] and len(batch) >= BATCH:
                deleted += client.unlink(*batch)
                batch = []
        if options["yes"] and batch:
            deleted += client.unlink(*batch)
        if options["yes"]:
            self.stdout.write(f"cleared {deleted} key(s) under {prefix!r}")
        else:
            self.stdout.write(f"{found} key(s) under {prefix!r}; --yes deletes them")


def _escape(prefix: str) -> str:
    """The prefix as a literal in a SCAN pattern (``*?[]\\`` taken as themselves)."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in prefix)
