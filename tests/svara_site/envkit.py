"""Django started in a subprocess with exactly the environment a test gives it.

Settings are read once per process, from the environment: a test of what a variable does starts
a process with it (and without every other variable of the room, whatever the test run has set).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOM_VARIABLES = {
    "DEBUG", "SECRET_KEY", "PUBLIC_URL", "TRUSTED_PROXIES", "TRUSTED_PROXY_NETWORKS", "ALLOWED_HOSTS", "PORT",
    "DATABASE_URL", "SOCKETS_PER_USER", "SOCKETS_PER_ADDRESS",
    "REDIS_URL", "LIVE_STATE_PREFIX", "LIVE_TABLE_WORKER", "CHANNEL_LAYER", "ADMINS", "SENTRY_DSN",
    "LOG_LEVEL", "STATIC_ROOT", "HSTS_SECONDS", "HSTS_INCLUDE_SUBDOMAINS", "HSTS_PRELOAD", "DB_POOL_SIZE",
    "DB_POOL_TIMEOUT", "EMAIL_HOST", "EMAIL_PORT", "SVARA_VAR_DIR", "DJANGO_SETTINGS_MODULE", "LOG_FORMAT",
    "METRICS_TOKEN", "WORKER_METRICS_PORT",
}  # fmt: skip


def strong_key() -> str:
    return secrets.token_urlsafe(50)


def clean_env(var_dir: Path, **variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ROOM_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="svara_site.settings",
        SVARA_VAR_DIR=str(var_dir),
        PYTHONPATH=str(ROOT),
        **variables,
    )
    return env


def run_python(code: str, env: dict[str, str], *, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def run_manage(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


SHOW_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
names = {names!r}
print(json.dumps({{n: getattr(settings, n, None) for n in names}}, default=str))
"""


def settings_of(names: list[str], env: dict[str, str]) -> dict[str, object]:
    import json

    done = run_python(SHOW_SETTINGS.format(names=names), env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
