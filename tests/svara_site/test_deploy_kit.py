"""The deploy kit (deploy/): the nginx site renders into a configuration nginx accepts, the example
environment passes `check --deploy`, the units start what exists."""

from __future__ import annotations

import configparser
import fnmatch
import http.client
import http.server
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from deploy import nginx_front, nginx_site
from deploy.local import NGINX_MAIN, free_port, make_certificate
from deploy.nginx_front import Front, render_front
from deploy.nginx_site import Site, render
from deploy.processes import Nginx, wait_until
from tests.conftest import service_missing
from tests.svara_site.envkit import ROOT, clean_env, run_manage, strong_key

KIT = ROOT / "deploy"


def test_the_nginx_site_renders_every_placeholder_and_nginx_accepts_it(tmp_path: Path) -> None:
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        service_missing("needs nginx (Debian's nginx package)")
    make_certificate(tmp_path / "tls", "svara.example")
    site = Site(
        public_url="https://svara.example",
        web_ports=(8001, 8002, 8003),
        static_root=tmp_path / "static",
        certificate=tmp_path / "tls" / "fullchain.pem",
        key=tmp_path / "tls" / "privkey.pem",
    )
    text = render(site)
    assert "@@" not in text.split("\n", 8)[-1]  # past the header's words about the placeholders
    assert text.count("server 127.0.0.1:800") == 3 and "listen 443 ssl http2;" in text
    assert "return 301 https://$host$request_uri;" in text
    (tmp_path / "tmp").mkdir()
    (tmp_path / "svara.conf").write_text(
        text.replace("listen 443", "listen 127.0.0.1:18443").replace("listen 80", "listen 127.0.0.1:18080")
    )
    (tmp_path / "nginx.conf").write_text(NGINX_MAIN.format(prefix=tmp_path))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-e", "stderr"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    with pytest.raises(ValueError):
        render(Site("http://svara.example", (8001,), tmp_path, tmp_path, tmp_path))


def test_every_proxied_location_sets_the_proxy_headers() -> None:
    # nginx inherits no proxy_set_header into a location that sets any of its own.
    text = (KIT / "nginx" / "svara.conf").read_text()
    for block in re.findall(r"location [^{]+\{(.*?)\n    \}", text, flags=re.S):
        if "proxy_pass" in block:
            for header in (
                "Host $http_host",
                "X-Forwarded-For $proxy_add_x_forwarded_for",
                "X-Forwarded-Proto $scheme",
                "X-Request-ID $request_id",  # the id the room's log lines carry (svara_site/logs.py)
            ):
                assert f"proxy_set_header {header};" in block, block


def test_the_example_environment_passes_check_deploy(tmp_path: Path) -> None:
    values = {}
    for line in (KIT / "svara.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value
    values["SECRET_KEY"] = strong_key()  # the example's placeholder is refused as too weak
    values["STATIC_ROOT"] = str(tmp_path / "static")
    values.pop("SVARA_VAR_DIR")  # clean_env gives it a temporary one
    done = run_manage("check", "--deploy", "--fail-level", "WARNING", env=clean_env(tmp_path, **values))
    assert done.returncode == 0, done.stdout + done.stderr
    values["SECRET_KEY"] = "change-me-to-50-random-characters"
    done = run_manage("check", env=clean_env(tmp_path, **values))
    assert done.returncode != 0 and "SECRET_KEY is too weak" in done.stderr


def test_the_units_start_what_the_room_has() -> None:
    web = (KIT / "systemd" / "svara-web@.service").read_text()
    worker = (KIT / "systemd" / "svara-worker.service").read_text()
    assert (
        "tcp:port=%i:interface=127.0.0.1" in web
        and "svara_site.asgi:application" in web
        and "EnvironmentFile=/etc/svara/svara.env" in web
    )
    assert "manage.py run_table_clock" in worker
    assert (ROOT / "games" / "management" / "commands" / "run_table_clock.py").exists()


def test_each_unit_says_how_it_is_stopped() -> None:
    # The worker releases its lease on SIGTERM (tests/live/test_lease.py); each unit names the
    # signal and how long it waits before killing, so an upgrade's stop is predictable.
    for unit in ("svara-web@.service", "svara-worker.service"):
        text = (KIT / "systemd" / unit).read_text()
        assert "KillSignal=SIGTERM" in text and re.search(r"^TimeoutStopSec=\d+$", text, flags=re.M), unit


def test_metrics_are_not_served_through_nginx() -> None:
    # Each process is scraped on its own port; the public site never shows /metrics.
    text = (KIT / "nginx" / "svara.conf").read_text()
    assert re.search(r"location = /metrics \{\s*return 404;\s*\}", text)


def test_no_web_process_is_locked_out_while_another_restarts(tmp_path: Path) -> None:
    # max_fails=1 marked processes down for 5 s at the first refused connection: during a rolling
    # restart both were down at once and reconnecting players got 502 for up to a minute (issue 31).
    # With max_fails=0 nginx never marks one down; a refused handshake goes to the next process.
    text = render(Site("https://svara.example", (8001, 8002), tmp_path, tmp_path, tmp_path))
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+(.*);$", text, flags=re.M)
    assert len(servers) == 2 and all("max_fails=0" in options for options in servers), servers
    sockets = re.search(r"location /ws/ \{(.*?)\n    \}", text, flags=re.S)
    assert sockets is not None
    assert re.search(r"proxy_next_upstream error timeout http_502 http_503;", sockets.group(1))


def example_env_file(tmp_path: Path) -> Path:
    """The shipped example, with a strong key and this test's directories: nothing else changed."""
    text = (KIT / "svara.env.example").read_text()
    text = text.replace("SECRET_KEY=change-me-to-50-random-characters", f"SECRET_KEY={strong_key()}")
    text = text.replace("STATIC_ROOT=/srv/svara/static", f"STATIC_ROOT={tmp_path / 'static'}")
    text = text.replace("SVARA_VAR_DIR=/srv/svara/var", f"SVARA_VAR_DIR={tmp_path / 'var'}")
    path = tmp_path / "svara.env"
    path.write_text(text)
    return path


def test_the_manage_wrapper_runs_manage_py_with_the_example_environment(tmp_path: Path) -> None:
    # The docs' old `env $(grep ... | xargs)` split `ADMINS=Ops <ops@svara.example>` and nothing
    # migrated (issue 31). The wrapper reads the file as systemd's EnvironmentFile does.
    env_file = example_env_file(tmp_path)
    assert "ADMINS=Ops <ops@svara.example>" in env_file.read_text()
    code = "from django.conf import settings; print(repr((settings.ADMINS, settings.LIVE_TABLE_WORKER)))"
    done = subprocess.run(
        [str(KIT / "svara-manage"), "--env-file", str(env_file), "shell", "-c", code],
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "([('Ops', 'ops@svara.example')], True)"
    done = subprocess.run(
        [str(KIT / "svara-manage"), "--env-file", str(tmp_path / "missing.env"), "check"],
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "missing.env" in done.stderr and not done.stdout


def test_a_nightly_backup_timer_runs_the_backup_with_retention() -> None:
    timer = (KIT / "systemd" / "svara-backup.timer").read_text()
    service = (KIT / "systemd" / "svara-backup.service").read_text()
    assert "OnCalendar=" in timer and "Persistent=true" in timer
    assert "-m deploy.backup --env-file /etc/svara/svara.env" in service
    assert "--keep-days 14" in service and "ReadWritePaths=/var/backups/svara" in service
    assert (ROOT / "deploy" / "backup.py").exists()


class _Up(http.server.BaseHTTPRequestHandler):
    """A web process that is back: 200 to anything."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


def test_nginx_sends_players_to_a_process_back_up_at_once() -> None:
    # Both processes refused a connection (one restarting, the other too, for a moment): with
    # max_fails=1 fail_timeout=5s nginx then answered 502 for 5 s more, even once one was back;
    # with max_fails=0 the first request after a process is back reaches it.
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        service_missing("needs nginx (Debian's nginx package)")
    # Not pytest's tmp_path: its parents are private, and nginx runs as nobody when we are root.
    with tempfile.TemporaryDirectory() as name:
        workdir = Path(name)
        tls = workdir / "tls"
        _chain, _key, authority = make_certificate(tls, "svara.example")
        https_port, web_ports = free_port(), (free_port(), free_port())
        site = Site(
            public_url=f"https://svara.example:{https_port}",
            web_ports=web_ports,
            static_root=workdir / "static",
            certificate=tls / "fullchain.pem",
            key=tls / "privkey.pem",
            http_port=free_port(),
            bind="127.0.0.1",
        )
        prefix = workdir / "nginx"
        (prefix / "tmp").mkdir(parents=True)
        (prefix / "svara.conf").write_text(render(site))
        (prefix / "nginx.conf").write_text(NGINX_MAIN.format(prefix=prefix))
        if os.geteuid() == 0:  # nginx runs as nobody: it reads the files and writes its own
            for path in [workdir, *workdir.rglob("*")]:
                os.chmod(path, 0o777 if path.is_dir() else 0o644)

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", https_port)) == 0

        def status() -> int:
            context = ssl.create_default_context(cafile=str(authority))
            conn = http.client.HTTPSConnection("127.0.0.1", https_port, context=context, timeout=10)
            try:
                conn.request("GET", "/healthz", headers={"Host": f"svara.example:{https_port}"})
                return conn.getresponse().status
            finally:
                conn.close()

        config = prefix / "nginx.conf"
        nginx = Nginx.start(prefix=prefix, config=config, log=workdir / "nginx.log", ready=listening)
        server = None
        try:
            assert status() == 502  # nothing listens on either port
            server = http.server.ThreadingHTTPServer(("127.0.0.1", web_ports[1]), _Up)  # listening now
            threading.Thread(target=server.serve_forever, daemon=True).start()
            assert [status() for _ in range(4)] == [200] * 4
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()
            nginx.stop()


SOCKETS_PER_PROCESS = 3000  # "a few thousand" table sockets on each Daphne process (issue 31)


def nginx_limits(text: str) -> tuple[int, int]:
    """worker_connections and worker_rlimit_nofile of a main nginx configuration (0: unset)."""
    connections = re.search(r"^\s*(?:events\s*\{\s*)?worker_connections (\d+);", text, flags=re.M)
    files = re.search(r"^\s*worker_rlimit_nofile (\d+);", text, flags=re.M)
    return int(connections.group(1)) if connections else 0, int(files.group(1)) if files else 0


def test_nginx_is_set_for_a_few_thousand_sockets_per_process() -> None:
    # Debian's nginx.conf: 768 connections a worker, 1024 files; each proxied socket is two
    # connections (the browser's and Daphne's). The kit ships the main file and the local shape
    # uses the same limits: two Daphne processes' sockets through one worker, and files for them.
    web = (KIT / "systemd" / "svara-web@.service").read_text()
    unit_files = re.search(r"^LimitNOFILE=(\d+)$", web, flags=re.M)
    assert unit_files is not None and int(unit_files.group(1)) >= 2 * SOCKETS_PER_PROCESS
    for text in ((KIT / "nginx" / "nginx.conf").read_text(), NGINX_MAIN.format(prefix="/p")):
        connections, files = nginx_limits(text)
        assert connections >= 2 * 2 * SOCKETS_PER_PROCESS, text
        assert files >= connections + 1024, text  # its logs, temporary files and cache besides


def test_the_shipped_nginx_main_file_is_accepted_with_the_site(tmp_path: Path) -> None:
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        service_missing("needs nginx (Debian's nginx package)")
    make_certificate(tmp_path / "tls", "svara.example")
    site = Site(
        "https://svara.example:18443",
        (8001, 8002),
        tmp_path / "static",
        tmp_path / "tls" / "fullchain.pem",
        tmp_path / "tls" / "privkey.pem",
        http_port=18080,
        bind="127.0.0.1",
    )
    (tmp_path / "sites").mkdir()
    (tmp_path / "sites" / "svara").write_text(render(site))
    # The shipped file as it is, but for where this test may write: its logs, pid and sites.
    text = (KIT / "nginx" / "nginx.conf").read_text()
    for path, here in (
        ("/var/log/svara/nginx", str(tmp_path)),
        ("/run/nginx.pid", str(tmp_path / "nginx.pid")),
        ("/etc/nginx/sites-enabled/*", str(tmp_path / "sites" / "*")),
    ):
        assert path in text, path
        text = text.replace(path, here)
    if os.geteuid() != 0:
        text = text.replace("user www-data;", "")
    (tmp_path / "nginx.conf").write_text(text)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    # No -p: the modules Debian enables load from nginx's own prefix, as in production.
    done = subprocess.run(
        [nginx, "-t", "-c", str(tmp_path / "nginx.conf"), "-e", "stderr"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr


def test_every_log_file_the_kit_writes_is_rotated() -> None:
    # Debian's logrotate knows /var/log/nginx only; the kit's nginx writes /var/log/svara/nginx.
    rotated = re.findall(r"^(/\S+) \{$", (KIT / "logrotate" / "svara").read_text(), flags=re.M)
    written = []
    for conf in (KIT / "nginx").glob("*.conf"):
        written += re.findall(r"^\s*(?:access_log|error_log) (/\S+?)[;\s]", conf.read_text(), flags=re.M)
    assert written and rotated
    for path in written:
        assert any(fnmatch.fnmatch(path, pattern) for pattern in rotated), (path, rotated)
    # The room's own processes log to the journal, which the kit caps.
    journal = configparser.ConfigParser()
    journal.optionxform = str  # type: ignore[assignment,method-assign]
    journal.read(KIT / "journald" / "svara.conf")
    assert re.fullmatch(r"\d+[KMG]", journal["Journal"]["SystemMaxUse"])
    assert re.fullmatch(r"\d+\w*", journal["Journal"]["MaxRetentionSec"])


def test_logrotate_rotates_nginx_logs_and_nginx_writes_the_new_file() -> None:
    # The shipped logrotate file, run for real on a running nginx (its paths moved to a temporary
    # directory): the old lines in access.log.1, and nginx, told to reopen, writing a new access.log.
    logrotate = shutil.which("logrotate") or "/usr/sbin/logrotate"
    if not Path(logrotate).exists() or not Path("/usr/sbin/nginx").exists():
        service_missing("needs logrotate and nginx (Debian's packages)")
    with tempfile.TemporaryDirectory() as name:
        workdir = Path(name)
        logs, port = workdir / "log", free_port()
        (workdir / "tmp").mkdir()
        logs.mkdir()
        main = NGINX_MAIN.format(prefix=workdir).replace(
            f"access_log {workdir}/access.log;", f"access_log {logs}/access.log;"
        )
        main = main.replace(
            f"include {workdir}/svara.conf;", f"server {{ listen 127.0.0.1:{port}; return 204; }}"
        )
        (workdir / "nginx.conf").write_text(main)
        rules = (KIT / "logrotate" / "svara").read_text()
        assert "/var/log/svara/nginx/" in rules and "/run/nginx.pid" in rules
        rules = rules.replace("/var/log/svara/nginx/", f"{logs}/").replace(
            "/run/nginx.pid", f"{workdir}/nginx.pid"
        )
        rules = re.sub(r"create 0640 \S+ \S+", "create 0666", rules)  # this nginx runs as nobody or as us
        (workdir / "logrotate.conf").write_text(rules)
        (logs / "access.log").touch()
        for path in [workdir, *workdir.rglob("*")]:
            os.chmod(path, 0o777 if path.is_dir() else 0o644)
        # logrotate refuses a world-writable log directory; nginx (nobody, when we are root)
        # only appends to files logrotate creates for it.
        os.chmod(logs, 0o755)
        os.chmod(logs / "access.log", 0o666)

        def get(path: str) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                conn.request("GET", path)
                conn.getresponse().read()
            finally:
                conn.close()

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        nginx = Nginx.start(
            prefix=workdir, config=workdir / "nginx.conf", log=workdir / "nginx.log", ready=listening
        )
        try:
            get("/before-rotation")
            # nginx logs a request after answering it: the line is there before logrotate runs.
            wait_until(
                lambda: "/before-rotation" in (logs / "access.log").read_text(),
                timeout=10,
                what="the first line",
            )
            done = subprocess.run(
                [logrotate, "-f", "-s", str(workdir / "state"), str(workdir / "logrotate.conf")],
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            get("/after-rotation")

            def reopened() -> bool:
                current = logs / "access.log"
                return current.exists() and "/after-rotation" in current.read_text()

            wait_until(reopened, timeout=10, what="nginx writing the new access.log")
            assert "/before-rotation" in (logs / "access.log.1").read_text()
            assert "/before-rotation" not in (logs / "access.log").read_text()
        finally:
            nginx.stop()


def test_the_front_and_a_machine_behind_it_render_and_nginx_accepts_both(tmp_path: Path) -> None:
    # Several machines behind one address (tests/deploy/test_several_machines.py runs them).
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        service_missing("needs nginx (Debian's nginx package)")
    make_certificate(tmp_path / "tls", "svara.example")
    chain, key = tmp_path / "tls" / "fullchain.pem", tmp_path / "tls" / "privkey.pem"
    machine = render(
        Site("https://svara.example:18443", (8001,), tmp_path, chain, key, 18080, "127.0.0.1", ("10.0.0.5",))
    )
    assert "set_real_ip_from 10.0.0.5/32;" in machine and "real_ip_header X-Forwarded-For;" in machine
    assert "set_real_ip_from" not in render(Site("https://svara.example", (8001,), tmp_path, chain, key))
    with pytest.raises(ValueError):  # a typo would trust nobody, or everybody
        render(Site("https://svara.example", (8001,), tmp_path, chain, key, front_proxies=("10.0.0.0/33",)))
    front = render_front(
        Front(
            "https://svara.example:18444", ("10.0.0.11:443", "10.0.0.12:443"), chain, key, 18081, "127.0.0.1"
        )
    )
    assert "server 10.0.0.11:443 max_fails=0;" in front and "proxy_pass https://svara_machines;" in front
    with pytest.raises(ValueError):
        render_front(Front("https://svara.example", (), chain, key))
    for name, text in (("machine", machine), ("front", front)):
        prefix = tmp_path / name
        (prefix / "tmp").mkdir(parents=True)
        (prefix / "svara.conf").write_text(text)
        (prefix / "nginx.conf").write_text(NGINX_MAIN.format(prefix=prefix))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        done = subprocess.run(
            [nginx, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", "stderr"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, (name, done.stderr)


def test_the_renderers_refuse_a_bad_network_or_machine_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    common = ["--public-url", "https://svara.example", "--certificate", "c.pem", "--key", "k.pem"]
    with pytest.raises(SystemExit) as stopped:
        nginx_site.main([*common, "--static-root", "/s", "--front-proxies", "10.0.0.0/33"])
    assert stopped.value.code == 2
    with pytest.raises(SystemExit) as stopped:
        nginx_front.main([*common, "--machines", "10.0.0.11"])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert not out and "10.0.0.0/33" in err and "host:port" in err
