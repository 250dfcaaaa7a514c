"""The site's settings with persistent database connections, for a what-if run of bench/load.py.

``python -m bench.load --settings bench.settings_persistent_db``: the production settings close the
connection after every ``database_sync_to_async`` call (CONN_MAX_AGE 0), so every settlement and
every hand start opens a new PostgreSQL connection on the process's one database thread.
"""

from svara_site.settings import *  # noqa: F403
from svara_site.settings import DATABASES

DATABASES["default"]["CONN_MAX_AGE"] = 300
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
