"""The backup and the restore as an operator runs them (deploy/backup.py, deploy/restore.py), on a
real PostgreSQL and Redis: a room whose database belongs to its own role, a nightly dump, more
play after it, then the restore procedure: the room stopped, its Redis prefix cleared, the
database back as the dump has it and owned by the room's role, the chips audited, the room
started again. And the backups' retention."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

from bench import harness as procs
from deploy import backup
from tests.live.test_multiprocess import delete_prefix
from tests.svara_site.envkit import ROOT, strong_key

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def room(redis_url: str, postgres_db: None, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A room's database owned by a role of its own (not postgres), and its environment file."""
    admin_url = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    tag = uuid.uuid4().hex[:10]
    role, name = f"svara_drill_{tag}", f"svara_drill_{tag}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'CREATE DATABASE "{name}" OWNER "{role}"')
    host = admin_url.split("@", 1)[1].rsplit("/", 1)[0]
    database_url = f"postgres://{role}@{host}/{name}"
    prefix = f"svara:drill:{tag}:"
    env_file = tmp_path / "svara.env"
    env_file.write_text(
        "# a room's environment, as /etc/svara/svara.env\n"
        f"DATABASE_URL={database_url}\nREDIS_URL={redis_url}\nLIVE_STATE_PREFIX={prefix}\n"
        f"SECRET_KEY={strong_key()}\nDEBUG=true\nSVARA_VAR_DIR={tmp_path / 'var'}\n"
        "ADMINS=Ops <ops@svara.example>\n"
    )
    env = procs.server_env(database_url=database_url, redis_url=redis_url, prefix=prefix)
    procs.manage(env, "migrate", "--noinput", "-v", "0")
    try:
        yield {
            "env": env,
            "env_file": env_file,
            "admin_url": admin_url,
            "role": role,
            "name": name,
            "database_url": database_url,
            "prefix": prefix,
            "redis_url": redis_url,
        }
    finally:
        delete_prefix(redis_url, prefix)
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def usernames(database_url: str) -> list[str]:
    with psycopg.connect(database_url) as conn:  # as the room's role: it must be able to read
        return sorted(r[0] for r in conn.execute("SELECT username FROM accounts_user").fetchall())


def test_the_restore_drill_brings_back_the_backup_as_the_rooms_role(
    room: dict[str, Any], tmp_path: Path
) -> None:
    env = room["env"]
    procs.django_call(env, "seed", players=["ann", "bob"], tables=[{}])
    backups = tmp_path / "backups"
    done = subprocess.run(
        [sys.executable, "-m", "deploy.backup", "--env-file", str(room["env_file"]), "--dir", str(backups)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (dump,) = backups.glob("svara-*.dump")
    assert not list(backups.glob("*.partial"))

    # The room plays on after the backup: a new player, and a hand "in play" in Redis.
    procs.django_call(env, "seed", players=["cyd"], tables=[])
    client = redis.Redis.from_url(room["redis_url"])
    client.hset(f"{room['prefix']}t:1", mapping={"v": 7, "doc": "{}"})
    client.set(f"{room['prefix']}worker", "gone-host:1:abc")
    other_room = f"svara:other:{uuid.uuid4().hex}:t:1"
    client.set(other_room, "not ours")

    events = tmp_path / "events"
    done = subprocess.run(
        [
            str(ROOT / "deploy" / "svara-restore"),
            "--env-file",
            str(room["env_file"]),
            "--dump",
            str(dump),
            "--admin-url",
            room["admin_url"],
            "--stop",
            f"sh -c 'echo stopped >> {events}'",
            "--start",
            f"sh -c 'echo started >> {events}'",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert events.read_text().split() == ["stopped", "started"]
        assert "OK: every balance matches its entries" in done.stdout  # audit_chips ran, clean
        # Redis: the room's keys gone (each table is rebuilt from the database), another room's kept.
        assert not list(client.scan_iter(match=f"{room['prefix']}*"))
        assert client.get(other_room) == b"not ours"
        # The database as the dump has it, readable by the room's own role, every table its own.
        players = usernames(room["database_url"])
        assert "ann" in players and "bob" in players and "cyd" not in players
        with psycopg.connect(room["database_url"]) as conn:
            owners = {
                r[0] for r in conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'public'")
            }
        assert owners == {room["role"]}
    finally:
        client.delete(other_room)


def test_a_restore_whose_audit_fails_leaves_the_room_stopped(room: dict[str, Any], tmp_path: Path) -> None:
    env = room["env"]
    procs.django_call(env, "seed", players=["ann"], tables=[])
    with psycopg.connect(room["database_url"], autocommit=True) as conn:
        # A balance that no ledger entry explains: what a bad backup would bring back.
        conn.execute(
            "UPDATE accounts_ledgeraccount SET balance = balance + 1"
            " WHERE id = (SELECT max(id) FROM accounts_ledgeraccount)"
        )
    backups = tmp_path / "backups"
    made = backup.dump(database_url=room["database_url"], directory=backups)
    events = tmp_path / "events"
    done = subprocess.run(
        [
            str(ROOT / "deploy" / "svara-restore"),
            "--env-file",
            str(room["env_file"]),
            "--dump",
            str(made),
            "--admin-url",
            room["admin_url"],
            "--stop",
            f"sh -c 'echo stopped >> {events}'",
            "--start",
            f"sh -c 'echo started >> {events}'",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 1 and "FAILED, the room is left stopped" in done.stdout
    assert "audit" in done.stdout and events.read_text().split() == ["stopped"]


def test_backups_older_than_the_retention_go_but_the_newest_stay(tmp_path: Path) -> None:
    now = time.time()
    ages = {"svara-a.dump": 40, "svara-b.dump": 20, "svara-c.dump": 15, "svara-d.dump": 1, "svara-e.dump": 0}
    for name, days in ages.items():
        path = tmp_path / name
        path.write_bytes(b"x")
        os.utime(path, (now - days * 86400, now - days * 86400))
    (tmp_path / "notes.txt").write_text("not a dump")
    removed = backup.prune(tmp_path, keep_days=14, keep_min=3, now=now)
    assert sorted(p.name for p in removed) == ["svara-a.dump", "svara-b.dump"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.txt",
        "svara-c.dump",
        "svara-d.dump",
        "svara-e.dump",
    ]
    # Old, but among the newest three: kept (a room whose backups stopped keeps its last ones).
    assert backup.prune(tmp_path, keep_days=0, keep_min=3, now=now + 10**6) == []
