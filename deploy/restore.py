"""Restore the room from a backup, as one procedure (docs/deploy.md, "Restore").

    python -m deploy.restore --dump /var/backups/svara/svara-20261207T031500Z.dump \\
        [--env-file /etc/svara/svara.env] [--admin-url postgresql:///postgres] \\
        [--admin-prefix 'sudo -u postgres'] \\
        [--stop 'systemctl stop svara.target'] [--start 'systemctl start svara.target']

1. Stop the room: nothing may write while the database goes back.
2. Clear the room's Redis prefix (``manage.py clear_live_state --yes``): hands Redis still held
   would otherwise stay "in play" for good, or pay players from a state the database never saw.
3. Recreate the database, owned by the room's role (DATABASE_URL's user), and ``pg_restore``
   into it as that role (``--no-owner --role=ROLE``): every table belongs to the user the room
   connects as (as postgres alone, ``--no-owner`` left the room without access to its tables).
4. ``manage.py audit_chips``: on a mismatch, stop here (exit 1) with the room still stopped.
5. Start the room: each table is rebuilt from the restored database on first use.

The administrator's commands (psql, pg_restore) connect with ``--admin-url`` (a PostgreSQL
superuser), each prefixed with ``--admin-prefix`` (``sudo -u postgres`` on Debian, whose
postgres user logs in over the socket); the dump is read here and handed to pg_restore on its
input, so that user need not read the backups' directory. Every step is printed as it runs.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from deploy import envfile

ROOT = Path(__file__).resolve().parents[1]


class Failed(Exception):
    pass


def say(text: str) -> None:
    print(f"svara-restore: {text}", flush=True)


def run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, text=True, capture_output=True, **options)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise Failed(f"{shlex.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def restore(
    *, env_file: Path, dump: Path, admin_url: str, admin_prefix: list[str], stop: str, start: str
) -> None:
    values = envfile.read(env_file)
    target = urlsplit(values["DATABASE_URL"])
    name, role = target.path.lstrip("/"), target.username
    if target.scheme not in ("postgres", "postgresql") or not name or not role:
        raise Failed("DATABASE_URL must name a PostgreSQL user and database")
    if not dump.is_file():
        raise Failed(f"no such dump: {dump}")
    manage = [str(ROOT / "deploy" / "svara-manage"), "--env-file", str(env_file)]

    say(f"1/5 stopping the room: {stop}")
    run(shlex.split(stop))
    say("2/5 clearing the room's keys in Redis")
    say(run([*manage, "clear_live_state", "--yes"]).stdout.strip())
    say(f"3/5 restoring {dump} into {name!r}, owned by {role!r}")
    psql = [*admin_prefix, "psql", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", f"--dbname={admin_url}"]
    run([*psql, "-c", f"DROP DATABASE IF EXISTS {quoted(name)} WITH (FORCE)"])
    run([*psql, "-c", f"CREATE DATABASE {quoted(name)} OWNER {quoted(role)}"])
    with dump.open("rb") as source:
        run(
            [
                *admin_prefix,
                "pg_restore",
                "--no-owner",
                f"--role={role}",
                "--exit-on-error",
                "--single-transaction",
                f"--dbname={with_database(admin_url, name)}",
            ],
            stdin=source,
        )
    say("4/5 auditing the chips")
    say(run([*manage, "audit_chips"]).stdout.strip())
    say(f"5/5 starting the room: {start}")
    run(shlex.split(start))
    say("done")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--env-file", type=Path, default=envfile.DEFAULT)
    parser.add_argument("--admin-url", default=os.environ.get("SVARA_ADMIN_URL", "postgresql:///postgres"))
    parser.add_argument("--admin-prefix", default="", help="e.g. 'sudo -u postgres'")
    parser.add_argument("--stop", default="systemctl stop svara.target")
    parser.add_argument("--start", default="systemctl start svara.target")
    args = parser.parse_args(argv)
    try:
        restore(
            env_file=args.env_file,
            dump=args.dump,
            admin_url=args.admin_url,
            admin_prefix=shlex.split(args.admin_prefix),
            stop=args.stop,
            start=args.start,
        )
    except (Failed, OSError, ValueError, KeyError) as exc:
        say(f"FAILED, the room is left stopped: {exc}")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
