"""The site's production settings for bench/growth.py: DEBUG off, as a player meets the pages.

The static files' hashed names need collectstatic first; the bench reads no static file, so the
plain storage stands in (the pages name the same files, unhashed).
"""

from svara_site.settings import *  # noqa: F403
from svara_site.settings import STORAGES

STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
