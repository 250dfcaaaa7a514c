"""Alerts go where an operator wants them (issue 31): a failing ``/healthz`` is a log line, not a
mail per poll; the table worker's errors are mailed (once per kind, not per tick); ``check
--deploy`` says when ADMINS are set without a mail server to reach them.

Each runs Django in a subprocess with DEBUG off, ADMINS set and the console mail backend (no
EMAIL_HOST): a mail shows up on standard output as a message with a ``Subject:`` line."""

from __future__ import annotations

from pathlib import Path

from tests.svara_site.envkit import clean_env, run_manage, run_python, strong_key


def room_env(tmp_path: Path, **more: str) -> dict[str, str]:
    values = {
        "SECRET_KEY": strong_key(),
        "ADMINS": "Ops <ops@svara.example>",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        **more,
    }
    return clean_env(tmp_path, **values)


def test_a_failing_health_check_is_logged_and_mails_nobody(tmp_path: Path) -> None:
    # Nothing listens on port 9 of the loopback: Redis is down. A balancer polls every second.
    env = room_env(tmp_path, REDIS_URL="redis://127.0.0.1:9/0")
    code = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "for _ in range(3): print('status', Client().get('/healthz').status_code)\n"
    )
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("status 503") == 3
    assert "Subject:" not in done.stdout, done.stdout[:2000]  # no mail
    warnings = [line for line in done.stderr.splitlines() if "svara.health" in line]
    assert len(warnings) == 3 and all("WARNING" in w and "redis" in w for w in warnings), done.stderr
    assert "ERROR django.request" not in done.stderr


def test_the_table_workers_errors_are_mailed_once_per_kind(tmp_path: Path) -> None:
    env = room_env(tmp_path)
    code = (
        "import django, logging; django.setup()\n"
        "log = logging.getLogger('games.live.runtime')\n"
        "for table in (7, 8, 9):\n"
        "    try:\n"
        "        raise RuntimeError('boom')\n"
        "    except RuntimeError:\n"
        "        log.exception('table %s: its deadline failed (%s in a row)', table, 1)\n"
        "logging.getLogger('games.live.clock').error('turn clock: store error, retrying in %.2f s', 0.5)\n"
    )
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr[-2000:]
    subjects = [line for line in done.stdout.splitlines() if line.startswith("Subject:")]
    # The same failure on three tables is one mail (the others are in the log); another is another.
    assert len(subjects) == 2, done.stdout[:3000]
    assert "table 7: its deadline failed" in subjects[0] and "Exception Value: boom" in done.stdout
    assert "turn clock: store error" in subjects[1]
    assert done.stderr.count("its deadline failed") == 3  # every one logged


def test_check_deploy_warns_about_admins_without_a_mail_server(tmp_path: Path) -> None:
    base = {
        "PUBLIC_URL": "https://svara.example",
        "STATIC_ROOT": str(tmp_path / "static"),
        "DATABASE_URL": "postgres://svara@127.0.0.1:5432/svara",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    done = run_manage("check", "--deploy", env=room_env(tmp_path, **base))
    assert "svara.W003" in done.stdout + done.stderr and "EMAIL_HOST" in done.stdout + done.stderr
    done = run_manage("check", "--deploy", env=room_env(tmp_path, EMAIL_HOST="smtp.svara.example", **base))
    assert "svara.W003" not in done.stdout + done.stderr
