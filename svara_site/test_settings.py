"""Settings for the test suite and the browser tests' server: the production settings plus the
test-only hooks (a stacked deck for the next hand). Never used by `make run`."""

from svara_site.settings import *  # noqa: F403

SVARA_TEST_HOOKS = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast sign-ups in tests
# Connections held by Channels' worker threads would keep the test database busy when pytest
# drops it; the tests close them after every use instead (CONN_MAX_AGE=0).
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
