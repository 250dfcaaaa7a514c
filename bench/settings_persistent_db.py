"""The site's settings with persistent database connections, for a what-if run of bench/load.py.

``python -m bench.load --settings bench.settings_persistent_db``: the production settings take
PostgreSQL connections from psycopg's pool and return them after every request and every
``database_sync_to_async`` call (CONN_MAX_AGE 0; the pool needs it); here each thread keeps its
own connection instead, as before the pool (which under Daphne's thread per request leaked them).
"""

from svara_site.settings import *  # noqa: F403
from svara_site.settings import DATABASES

DATABASES["default"].get("OPTIONS", {}).pop("pool", None)
DATABASES["default"]["CONN_MAX_AGE"] = 300
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
