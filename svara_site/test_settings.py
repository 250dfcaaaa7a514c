"""Settings for the test suite and the browser tests' server: the production settings plus the
test-only hooks (a stacked deck for the next hand). Never used by `make run`.

The tests run as `make run` does, on one machine's defaults: DEBUG on unless the environment
says otherwise (so a key is generated into var/ when none is given), static files from the
finders (pytest-django turns DEBUG off in the test process, and hashed names would need
collectstatic first).
"""

import os
import uuid

os.environ.setdefault("DEBUG", "true")

from svara_site.settings import *  # noqa: F403

SVARA_TEST_HOOKS = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast sign-ups in tests
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
WHITENOISE_USE_FINDERS = True
# The tests that let a turn run out expect the clock to act at once; the time bank's own tests
# give their tables one (tests/live/test_turn_time.py).
if "LIVE_TIME_BANK_SECONDS" not in os.environ:
    LIVE_TIME_BANK_SECONDS = 0

if "LIVE_STATE_PREFIX" not in os.environ:
    # Pub/Sub channels belong to the whole Redis server: a run of the suite beside another (or a
    # benchmark) would hear the other's lobby and tables under the shared default prefix.
    LIVE_STATE_PREFIX = f"svara:test:{uuid.uuid4().hex}:"
    CHANNEL_LAYERS = channel_layers(  # noqa: F405
        redis_url=REDIS_URL,  # noqa: F405
        state_prefix=LIVE_STATE_PREFIX,
        kind=os.environ.get("CHANNEL_LAYER", "pubsub"),
    )
    CACHES["default"]["KEY_PREFIX"] = f"{LIVE_STATE_PREFIX}cache"  # noqa: F405  (log-in lockouts too)
