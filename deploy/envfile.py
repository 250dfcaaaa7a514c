"""Run ``manage.py`` with the room's environment file, read the way systemd reads it.

    deploy/svara-manage [--env-file /etc/svara/svara.env] migrate --noinput

The units read ``/etc/svara/svara.env`` with ``EnvironmentFile=``; an operator's command must see
exactly the same values. A shell cannot source that file (``ADMINS=Ops <ops@svara.example>`` is a
redirection to a shell) and ``env $(... | xargs)`` splits it at the spaces, so this reads it as
systemd does: ``NAME=value`` per line, the whole rest of the line as the value (surrounding quotes
removed), ``#`` and ``;`` lines ignored. Its values replace the caller's; everything else of the
caller's environment (PATH, HOME) is kept.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("SVARA_ENV_FILE", "/etc/svara/svara.env"))
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read(path: Path) -> dict[str, str]:
    """The file's variables; ValueError naming the line that is not ``NAME=value``."""
    values: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        name, equals, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not NAME.fullmatch(name):
            raise ValueError(f"{path}:{number}: not NAME=value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[name] = value
    return values


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="svara-manage", description="manage.py with the room's environment file"
    )
    parser.add_argument("--env-file", type=Path, default=DEFAULT)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="manage.py's command and options")
    args = parser.parse_args(argv)
    try:
        values = read(args.env_file)
    except (OSError, ValueError) as exc:
        print(f"svara-manage: cannot read the environment file: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    env = {**os.environ, **values}
    os.chdir(ROOT)
    os.execve(sys.executable, [sys.executable, str(ROOT / "manage.py"), *args.command], env)


if __name__ == "__main__":
    main()
