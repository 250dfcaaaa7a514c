"""Static files served by the application itself, so any proxy in front works (WhiteNoise).

Without DEBUG they come from ``collectstatic``'s output: hashed names served with a year's
``Cache-Control: max-age, immutable``, and gzip/brotli copies for browsers that take them. Under
DEBUG (``make run``) they come straight from the finders, as Django's own server does.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import storages
from whitenoise.middleware import WhiteNoiseMiddleware

from svara_site.config import stop


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    def candidate_paths_for_url(self, url: str) -> list[str]:
        # Under DEBUG the finders look a path up on each request, and one climbing out of the
        # static directories (/static/../../svara_site/settings.py) raised: a 500. It is no
        # static file, so Django's 404 answers it.
        try:
            return super().candidate_paths_for_url(url)
        except SuspiciousFileOperation:
            return []


def check_collected() -> None:
    """Stop a serving process whose hashed static files were never collected: every page
    naming one would fail ("Missing staticfiles manifest entry") instead."""
    storage = storages["staticfiles"]
    if isinstance(storage, ManifestFilesMixin) and not storage.exists(storage.manifest_name):
        stop("STATIC_ROOT", f"({settings.STATIC_ROOT}) holds no collected files: run manage.py collectstatic")
