"""Server processes of the room: Daphne, the table worker and nginx, each in its own session.

Used by ``python -m deploy.local`` (the production shape on one machine), the tests and the load
benchmark. Each process writes its output to a log file; callers stop it (``stop``: SIGTERM, then
SIGKILL) or kill it (``kill``: SIGKILL, as when a machine dies), and only it: it runs in its own
process group, so a signal never reaches the caller.

``Daphne`` binds a free port (``-p 0``) and reads it back from its "Listening on" log line, which
avoids the race of picking a port and binding it later.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LISTENING_RE = re.compile(r"Listening on TCP address [0-9.]+:(\d+)")
# How Daphne listens (issue 38): with its defaults, Twisted's listen backlog of 50 and a 5 s
# handshake, only 56-102 of 800 sockets connecting at once got in on a busy machine (the rest
# overflowed the backlog, whose retries come seconds later, or timed out mid-handshake while the
# process was rendering). The kernel caps the backlog at net.core.somaxconn (4096 here). The
# Makefile's run target and the systemd unit say the same (tests/deploy/test_daphne_listen.py).
LISTEN_BACKLOG = 1024
HANDSHAKE_SECONDS = 30


def listen_options(port: int | str) -> list[str]:
    """Daphne's options to listen on 127.0.0.1:``port`` with the room's backlog and handshake time."""
    return [
        "-e",
        f"tcp:port={port}:interface=127.0.0.1:backlog={LISTEN_BACKLOG}",
        "--websocket_connect_timeout",
        str(HANDSHAKE_SECONDS),
    ]


def wait_until(predicate: Callable[[], Any], *, timeout: float, what: str, interval: float = 0.05) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def _spawn(command: list[str], *, env: dict[str, str], log: Path, **popen: Any) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    try:
        return subprocess.Popen(
            command,
            env=env,
            cwd=ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killing it never reaches us
            **popen,
        )
    finally:
        handle.close()


@dataclass
class Process:
    """A server process of ours, its output in ``log``."""

    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, as when a machine dies."""
        if self.alive:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        self._terminate(self.proc)

    @staticmethod
    def _terminate(proc: subprocess.Popen[bytes]) -> None:
        if proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


@dataclass
class Daphne(Process):
    """One Daphne process serving ``app``; ``port`` is the one it actually bound."""

    port: int = 0

    @classmethod
    def start(
        cls,
        *,
        env: dict[str, str],
        log: Path,
        app: str = "svara_site.asgi:application",
        options: tuple[str, ...] = (),
        port: int = 0,
    ) -> Daphne:
        """``options``: more of daphne's (the production shape: ``--access-log /dev/null``);
        ``port`` 0: a free one."""
        command = [str(BIN / "daphne"), *listen_options(port), *options, app]
        proc = _spawn(command, env=env, log=log)
        try:
            port = wait_until(lambda: cls._listening(proc, log), timeout=30, what=f"daphne ({log})")
        except BaseException:
            cls._terminate(proc)
            raise
        return cls(proc=proc, port=port, log=log)

    @staticmethod
    def _listening(proc: subprocess.Popen[bytes], log: Path) -> int | None:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        match = LISTENING_RE.search(log.read_text(errors="replace"))
        return int(match.group(1)) if match else None

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class TableWorker(Process):
    """``manage.py run_table_clock``: the table worker under LIVE_TABLE_WORKER (one more clock
    otherwise). Started when it says its clock runs."""

    @classmethod
    def start(cls, *, env: dict[str, str], log: Path, ready: str = "table clock running") -> TableWorker:
        """Started when its log says ``ready`` ("table clock standing by" for a standby)."""
        proc = _spawn([sys.executable, str(ROOT / "manage.py"), "run_table_clock"], env=env, log=log)
        worker = cls(proc=proc, log=log)
        try:
            wait_until(lambda: worker.says(ready), timeout=30, what=f"the table worker ({log})")
        except BaseException:
            worker.stop()
            raise
        return worker

    def says(self, text: str) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"run_table_clock exited with {self.proc.returncode}:\n{self.tail()}")
        return text in self.log.read_text(errors="replace")


@dataclass
class Nginx(Process):
    """nginx in the foreground with its own prefix and configuration (``daemon off;`` and every
    path inside ``prefix``), unprivileged: started as root, it runs as ``nobody`` instead."""

    @classmethod
    def start(cls, *, prefix: Path, config: Path, log: Path, ready: Callable[[], bool]) -> Nginx:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"  # Debian's is in sbin, off some PATHs
        command = [binary, "-p", str(prefix), "-c", str(config), "-e", "stderr"]
        account: dict[str, Any] = {"user": "nobody", "group": "nogroup"} if os.geteuid() == 0 else {}
        proc = _spawn(command, env={"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin")}, log=log, **account)
        server = cls(proc=proc, log=log)

        def serving() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"nginx exited with {proc.returncode}:\n{server.tail()}")
            return ready()

        try:
            wait_until(serving, timeout=30, what=f"nginx ({log})", interval=0.1)
        except BaseException:
            server.stop()
            raise
        return server
