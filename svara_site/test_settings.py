"""Settings for the test suite and the browser tests' server: the production settings plus the
test-only hooks (a stacked deck for the next hand). Never used by `make run`."""

import uuid

from svara_site.settings import *  # noqa: F403

SVARA_TEST_HOOKS = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast sign-ups in tests
# Connections held by Channels' worker threads would keep the test database busy when pytest
# drops it; the tests close them after every use instead (CONN_MAX_AGE=0).
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405

if "LIVE_STATE_PREFIX" not in os.environ:  # noqa: F405
    # Pub/Sub channels belong to the whole Redis server: a run of the suite beside another (or a
    # benchmark) would hear the other's lobby and tables under the shared default prefix.
    LIVE_STATE_PREFIX = f"svara:test:{uuid.uuid4().hex}:"
    CHANNEL_LAYERS = channel_layers(  # noqa: F405
        redis_url=REDIS_URL,  # noqa: F405
        state_prefix=LIVE_STATE_PREFIX,
        kind=os.environ.get("CHANNEL_LAYER", "pubsub"),  # noqa: F405
    )
