"""The settings' environment variables: PUBLIC_URL's one switch, DEBUG off unless asked for, a
required SECRET_KEY, `check --deploy` clean, and one line naming a malformed variable."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from tests.svara_site.envkit import clean_env, run_manage, run_python, settings_of, strong_key

SETUP = "import django; django.setup(); print('started')"
SERVICES = {
    "DATABASE_URL": "postgres://svara@db.internal:5432/svara",
    "REDIS_URL": "redis://redis.internal:6379/0",
}


def test_without_debug_a_secret_key_is_required_in_one_line(tmp_path: Path) -> None:
    done = run_python(SETUP, clean_env(tmp_path))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "SECRET_KEY" in lines[0] and "DEBUG" in lines[0], done.stderr
    assert not (tmp_path / "secret_key").exists()  # nothing generated behind the operator's back


def test_debug_is_off_unless_asked_for(tmp_path: Path) -> None:
    assert settings_of(["DEBUG"], clean_env(tmp_path, SECRET_KEY=strong_key())) == {"DEBUG": False}
    # Asked for (as make run does): on, with a key generated into var/ and kept there.
    first = settings_of(["DEBUG", "SECRET_KEY"], clean_env(tmp_path, DEBUG="true"))
    again = settings_of(["SECRET_KEY"], clean_env(tmp_path, DEBUG="true"))
    assert first["DEBUG"] is True and first["SECRET_KEY"] == again["SECRET_KEY"]
    assert (tmp_path / "secret_key").read_text().strip() == first["SECRET_KEY"]


def test_make_run_keeps_debug_on_by_default() -> None:
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:") :].split("\n\n")[0]
    assert "$(LOCAL) $(BIN)/daphne" in run and "LOCAL := DEBUG=$${DEBUG:-true}" in makefile


def test_public_url_turns_on_what_a_room_behind_tls_needs(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SECRET_KEY=strong_key(), PUBLIC_URL="https://svara.example:8443", **SERVICES)
    names = [
        "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
        "SECURE_SSL_REDIRECT", "SECURE_PROXY_SSL_HEADER", "SECURE_HSTS_SECONDS", "TRUSTED_PROXIES",
        "PUBLIC_URL",
    ]  # fmt: skip
    seen = settings_of(names, env)
    assert seen == {
        "ALLOWED_HOSTS": ["svara.example"],
        "CSRF_TRUSTED_ORIGINS": ["https://svara.example:8443"],
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SECURE_HSTS_SECONDS": 365 * 24 * 3600,
        "TRUSTED_PROXIES": 1,
        "PUBLIC_URL": "https://svara.example:8443",
    }
    # Without it: no proxy trusted, plain local origins.
    local = settings_of(["TRUSTED_PROXIES", "CSRF_TRUSTED_ORIGINS"], clean_env(tmp_path, DEBUG="1"))
    assert local == {
        "TRUSTED_PROXIES": 0,
        "CSRF_TRUSTED_ORIGINS": ["http://127.0.0.1:8000", "http://localhost:8000", "http://testserver:8000"],
    }


def test_check_deploy_reports_nothing_with_public_url_a_key_and_the_services(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SECRET_KEY=strong_key(), PUBLIC_URL="https://svara.example", **SERVICES)
    done = run_manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    # The check can fail: without PUBLIC_URL the same command warns (no HSTS, no secure cookies).
    bare = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env=clean_env(tmp_path, SECRET_KEY=strong_key())
    )
    assert bare.returncode != 0 and "security.W004" in bare.stderr + bare.stdout
    # PUBLIC_URL on one machine's defaults (SQLite, no Redis): said too.
    alone = run_manage(
        "check",
        "--deploy",
        env=clean_env(tmp_path, SECRET_KEY=strong_key(), PUBLIC_URL="https://svara.example"),
    )
    assert "svara.W001" in alone.stderr and "svara.W002" in alone.stderr, alone.stderr


def test_commands_run_before_collectstatic_with_hashed_static_names(tmp_path: Path) -> None:
    # The favicon's redirect resolved its hashed name when urls.py was imported: every command
    # (migrate too) failed while STATIC_ROOT was empty.
    env = clean_env(tmp_path, SECRET_KEY=strong_key(), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    done = run_manage("migrate", "--noinput", "-v", "0", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert run_manage("collectstatic", "--noinput", "-v", "0", env=env).returncode == 0
    served = run_python(
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "r = Client().get('/favicon.ico', HTTP_HOST='localhost', HTTP_X_FORWARDED_PROTO='https')\n"
        "print(r.status_code, r.headers.get('Location'))",
        env,
    )
    assert served.returncode == 0, served.stderr[-3000:]
    status, location = served.stdout.split()
    assert status == "301" and re.fullmatch(r"/static/favicon\.[0-9a-f]{12}\.svg", location), served.stdout


def test_a_server_without_collected_static_files_stops_in_one_line(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SECRET_KEY=strong_key(), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    done = run_python("import svara_site.asgi", env)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "STATIC_ROOT" in lines[0] and "collectstatic" in lines[0], done.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PUBLIC_URL", "http://svara.example"),  # not https
        ("PUBLIC_URL", "https://svara.example/room"),  # a path
        ("PUBLIC_URL", "https://ann:pw@svara.example"),
        ("PUBLIC_URL", "https://svara.example:99999"),
        ("TRUSTED_PROXIES", "one"),
        ("TRUSTED_PROXIES", "-1"),
        ("DEBUG", "maybe"),
        ("SECRET_KEY", "short"),
        ("PORT", "80a"),
        ("DATABASE_URL", "mysqlx://nowhere"),
        ("REDIS_URL", "http://redis:6379"),
        ("REDIS_URL", "redis+sentinel://s1:26379,s2/master"),
        ("REDIS_URL", "redis+sentinel://s1:26379"),
        ("LIVE_TABLE_WORKER", "1"),  # without REDIS_URL
        ("CHANNEL_LAYER", "rabbit"),
        ("ADMINS", "nobody"),
        ("SENTRY_DSN", "not-a-dsn"),
        ("LOG_LEVEL", "LOUD"),
        ("DB_POOL_SIZE", "many"),
        ("HSTS_SECONDS", "a year"),
        ("LIVE_START_DELAY_MS", "3s"),
        ("LIVE_SHOWDOWN_PAUSE_MS", "-1"),
    ],
)
def test_a_malformed_variable_stops_start_up_in_one_line_naming_it(
    tmp_path: Path, variable: str, value: str
) -> None:
    base = {"SECRET_KEY": strong_key(), "PUBLIC_URL": "https://svara.example"}
    if variable in ("DB_POOL_SIZE",):
        base["DATABASE_URL"] = SERVICES["DATABASE_URL"]
    done = run_python(SETUP, clean_env(tmp_path, **{**base, variable: value}))
    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"svara: cannot start: {variable} "), done.stderr


def test_postgresql_connections_come_from_a_bounded_pool(tmp_path: Path) -> None:
    env = clean_env(tmp_path, SECRET_KEY=strong_key(), **SERVICES)
    [database] = settings_of(["DATABASES"], env).values()
    default = database["default"]  # type: ignore[index]
    assert default["CONN_MAX_AGE"] == 0
    assert default["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 8, "timeout": 10}


SET_OR_GET = """
import sys, django
django.setup()
from django.core.cache import cache
if sys.argv[1] == "set":
    cache.set("allauth-lockout", "locked", 60)
print(cache.get("allauth-lockout"))
"""


def test_two_rooms_on_one_redis_keep_their_cache_keys_apart(tmp_path: Path, redis_url: str) -> None:
    import subprocess
    import sys

    room, other = f"svara:test:{uuid.uuid4().hex}:", f"svara:test:{uuid.uuid4().hex}:"

    def run(prefix: str, action: str) -> str:
        env = clean_env(tmp_path, DEBUG="1", REDIS_URL=redis_url, LIVE_STATE_PREFIX=prefix)
        out = subprocess.run(
            [sys.executable, "-c", SET_OR_GET, action], env=env, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.strip()

    assert run(room, "set") == "locked"
    assert run(room, "get") == "locked"  # the same room sees its own key
    assert run(other, "get") == "None"  # the other room does not
