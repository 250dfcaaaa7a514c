"""How Daphne listens: the backlog and handshake time that let sockets arriving at once on a busy
process in (deploy/processes.py), the same in make run, the systemd unit and every process the
benchmarks and tests start."""

from __future__ import annotations

import subprocess
import uuid

from deploy.processes import HANDSHAKE_SECONDS, LISTEN_BACKLOG, ROOT, Daphne, listen_options


def test_make_run_and_the_systemd_unit_listen_as_the_processes_do():
    wanted = f"backlog={LISTEN_BACKLOG}"
    for kit in ("Makefile", "deploy/systemd/svara-web@.service"):
        text = (ROOT / kit).read_text()
        assert wanted in text and f"--websocket_connect_timeout {HANDSHAKE_SECONDS}" in text, kit
    assert "-b 127.0.0.1" not in (ROOT / "Makefile").read_text()  # -b/-p would be a second endpoint
    assert listen_options(8001)[1] == f"tcp:port=8001:interface=127.0.0.1:{wanted}"


def test_a_daphne_process_listens_with_the_room_s_backlog(tmp_path):
    """The kernel's own account of the listening socket: ``ss`` gives a listener's backlog as its
    Send-Q (Twisted's default, 50, before)."""
    from bench import harness

    env = harness.server_env(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", redis_url=None, prefix=f"t:{uuid.uuid4().hex}:"
    )
    server = Daphne.start(env=env, log=tmp_path / "daphne.log")
    try:
        listing = subprocess.run(
            ["ss", "-ltnH", f"sport = :{server.port}"], capture_output=True, text=True, check=True
        ).stdout.split()
        assert listing[0] == "LISTEN" and int(listing[2]) == LISTEN_BACKLOG, listing
    finally:
        server.stop()
