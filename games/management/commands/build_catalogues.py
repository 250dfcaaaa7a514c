"""Compile the translation catalogues (locale/*/LC_MESSAGES/*.po → .mo) with polib.

Django's compilemessages needs GNU gettext's msgfmt, which a fresh machine may not have; polib
is a pip package, so `make run` and `make test` need nothing from the system.
"""

from pathlib import Path

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Compile every .po catalogue under LOCALE_PATHS into its .mo file."

    def handle(self, *args, **options) -> None:
        built = 0
        for root in map(Path, settings.LOCALE_PATHS):
            for po_path in sorted(root.glob("*/LC_MESSAGES/*.po")):
                try:
                    catalogue = polib.pofile(str(po_path))
                except (OSError, ValueError) as exc:
                    raise CommandError(f"{po_path}: {exc}") from exc
                catalogue.save_as_mofile(str(po_path.with_suffix(".mo")))
                built += 1
        self.stdout.write(f"compiled {built} catalogue(s)")
