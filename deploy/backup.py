"""One backup of the room's database, and the old ones removed (svara-backup.timer runs it nightly).

    python -m deploy.backup [--env-file /etc/svara/svara.env] [--dir /var/backups/svara] \\
        [--keep-days 14] [--keep-min 3]

``pg_dump -Fc`` as the room's own database user (DATABASE_URL of the environment file; its
password goes in PGPASSWORD, never on a command line), written under a temporary name and renamed
when complete, so a dump cut short never looks like a backup. Then dumps older than
``--keep-days`` are deleted, but never the newest ``--keep-min``. Money lives only in PostgreSQL;
Redis holds hands in play, which a restore clears (deploy/restore.py).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from deploy import envfile

PATTERN = "svara-*.dump"


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """A DATABASE_URL as a libpq URL without its password, and the environment that carries it."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ValueError(f"DATABASE_URL is not PostgreSQL ({parts.scheme}://)")
    env = {"PGPASSWORD": parts.password} if parts.password else {}
    netloc = parts.hostname or ""
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    return urlunsplit(("postgresql", netloc, parts.path, parts.query, "")), env


def dump(*, database_url: str, directory: Path, now: float | None = None) -> Path:
    url, secret = libpq(database_url)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    final = directory / f"svara-{stamp}.dump"
    partial = final.with_suffix(".dump.partial")
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={partial}", f"--dbname={url}"],
        env={**os.environ, **secret},
        check=True,
    )
    partial.rename(final)
    return final


def prune(directory: Path, *, keep_days: float, keep_min: int, now: float | None = None) -> list[Path]:
    """Delete dumps older than ``keep_days``, keeping the newest ``keep_min`` whatever their age."""
    now = time.time() if now is None else now
    dumps = sorted(directory.glob(PATTERN), key=lambda p: p.stat().st_mtime, reverse=True)
    removed = []
    for path in dumps[keep_min:]:
        if now - path.stat().st_mtime > keep_days * 86400:
            path.unlink()
            removed.append(path)
    return removed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-file", type=Path, default=envfile.DEFAULT)
    parser.add_argument("--dir", type=Path, default=Path("/var/backups/svara"))
    parser.add_argument("--keep-days", type=float, default=14)
    parser.add_argument("--keep-min", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        database_url = envfile.read(args.env_file)["DATABASE_URL"]
        made = dump(database_url=database_url, directory=args.dir)
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as exc:
        print(f"svara-backup: failed: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"svara-backup: wrote {made} ({made.stat().st_size} bytes)")
    for path in prune(args.dir, keep_days=args.keep_days, keep_min=args.keep_min):
        print(f"svara-backup: removed {path} (older than {args.keep_days:g} days)")


if __name__ == "__main__":
    main()
