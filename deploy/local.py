"""The production shape on one machine: nginx from the kit with a throwaway certificate in front
of N Daphne processes and the table worker, DEBUG off, PUBLIC_URL set, on PostgreSQL and Redis.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m deploy.local [--web 2] [--port 8443]

It migrates the database it is given, compiles the catalogues, collects the static files into a
temporary directory, starts everything and prints the address (the browser will warn about the
certificate: it is made for this run, by ``trustme``; its authority is printed too). Ctrl-C stops
it all. The browser test of this shape (tests/e2e/test_production_shape.py) starts it through
``production_shape``, so what it checks is what this command runs.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from deploy.nginx_site import Site, render
from deploy.processes import ROOT, Daphne, Nginx, TableWorker

# The room logs each request itself (svara.access); sockets read at most 16 KB a message (Makefile).
DAPHNE_OPTIONS = ("--access-log", "/dev/null", "--websocket-max-message-size", "16384")
# Variables of the room this shape sets itself; any of them in the caller's environment is dropped.
ROOM_VARIABLES = (
    "DEBUG", "SECRET_KEY", "PUBLIC_URL", "TRUSTED_PROXIES", "ALLOWED_HOSTS", "PORT", "STATIC_ROOT",
    "LIVE_TABLE_WORKER", "SVARA_VAR_DIR", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL",
    "LIVE_STATE_PREFIX",
)  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The main configuration of this shape's nginx: the limits of the kit's deploy/nginx/nginx.conf
# (a few thousand sockets per Daphne process), its paths in the shape's own prefix.
NGINX_MAIN = """\
daemon off;
worker_processes 1;
worker_rlimit_nofile 65536;
pid {prefix}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 16384; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    include {prefix}/svara.conf;
}}
"""


@dataclass
class Shape:
    """What ``production_shape`` started; ``request`` goes through nginx as a browser would."""

    public_url: str
    host: str
    port: int
    env: dict[str, str]
    web: list[Daphne]
    worker: TableWorker
    nginx: Nginx
    ca_file: Path
    workdir: Path
    logs: Path
    site: Site
    restarts: int = field(default=0)

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_file))

    def request(
        self,
        path: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
        source: str | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One HTTPS request to nginx (from the loopback address ``source``, if given)."""
        conn = http.client.HTTPSConnection(
            "127.0.0.1",
            self.port,
            context=self.ssl_context(),
            timeout=30,
            source_address=(source, 0) if source else None,
        )
        try:
            conn.request(
                method, path, body=body, headers={"Host": f"{self.host}:{self.port}", **(headers or {})}
            )
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            conn.close()

    def healthy(self) -> bool:
        return self.probe(host=self.host, port=self.port, ca_file=self.ca_file)()

    @staticmethod
    def probe(*, host: str, port: int, ca_file: Path) -> Callable[[], bool]:
        """Does /healthz answer 200 through nginx?"""

        def healthy() -> bool:
            context = ssl.create_default_context(cafile=str(ca_file))
            conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=5)
            try:
                conn.request("GET", "/healthz", headers={"Host": f"{host}:{port}"})
                return conn.getresponse().status == 200
            except (OSError, http.client.HTTPException):
                return False
            finally:
                conn.close()

        return healthy

    def start_web(self, index: int) -> Daphne:
        """Start web process ``index`` again (after a kill or a stop) on the port nginx knows."""
        self.restarts += 1
        log = self.logs / f"daphne-{index}-{self.restarts}.log"
        port = self.site.web_ports[index]
        server = Daphne.start(env=self.env, log=log, port=port, options=DAPHNE_OPTIONS)
        self.web[index] = server
        return server


def shape_env(
    *, database_url: str, redis_url: str, public_url: str, workdir: Path, prefix: str, secret_key: str
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ROOM_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="svara_site.settings",
        DEBUG="false",
        SECRET_KEY=secret_key,
        PUBLIC_URL=public_url,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        LIVE_STATE_PREFIX=prefix,
        LIVE_TABLE_WORKER="1",
        STATIC_ROOT=str(workdir / "static"),
        SVARA_VAR_DIR=str(workdir / "var"),
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    return env


def _manage(env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")


def make_certificate(tls: Path, host: str) -> tuple[Path, Path, Path]:
    """A certificate authority made for this run and a certificate for ``host`` (and 127.0.0.1):
    ``fullchain.pem``, ``privkey.pem`` and the authority's ``ca.pem`` in ``tls``."""
    import trustme

    tls.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    issued = ca.issue_cert(host, "127.0.0.1")
    chain, key, authority = tls / "fullchain.pem", tls / "privkey.pem", tls / "ca.pem"
    issued.private_key_pem.write_to_path(str(key))
    chain.write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    ca.cert_pem.write_to_path(str(authority))
    return chain, key, authority


def _hand_to_nobody(path: Path) -> None:
    """nginx runs as nobody when we are root: it must read the site, certificate and static files
    and write its temporary files; a throwaway key may be world-readable."""
    if os.geteuid() != 0:
        return
    for directory, _dirs, files in os.walk(path):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
    shutil.chown(path / "nginx", user="nobody", group="nogroup")
    for directory, dirs, files in os.walk(path / "nginx"):
        for name in dirs + files:
            shutil.chown(os.path.join(directory, name), user="nobody", group="nogroup")


@contextmanager
def nginx_in_front(
    *, public_url: str, web_ports: tuple[int, ...], static_root: Path, tls: Path, workdir: Path, logs: Path
) -> Iterator[tuple[Nginx, Site]]:
    """nginx from the kit's site in front of ``web_ports``, unprivileged, in ``workdir/nginx``;
    started when /healthz answers through it, stopped after the block."""
    site = Site(
        public_url=public_url,
        web_ports=web_ports,
        static_root=static_root,
        certificate=tls / "fullchain.pem",
        key=tls / "privkey.pem",
        http_port=free_port(),
        bind="127.0.0.1",
    )
    nginx_dir = workdir / "nginx"
    (nginx_dir / "tmp").mkdir(parents=True)
    (nginx_dir / "svara.conf").write_text(render(site))
    (nginx_dir / "nginx.conf").write_text(NGINX_MAIN.format(prefix=nginx_dir))
    _hand_to_nobody(workdir)
    parts = public_url.split("//", 1)[1]
    host, _, port = parts.partition(":")
    probe = Shape.probe(host=host, port=int(port or 443), ca_file=tls / "ca.pem")
    nginx = Nginx.start(
        prefix=nginx_dir, config=nginx_dir / "nginx.conf", log=logs / "nginx.log", ready=probe
    )
    try:
        yield nginx, site
    finally:
        nginx.stop()


@contextmanager
def production_shape(
    *,
    database_url: str,
    redis_url: str,
    web: int = 2,
    host: str = "localhost",
    port: int = 0,
    logs: Path | None = None,
    prefix: str | None = None,
    secret_key: str | None = None,
    tls: Path | None = None,
) -> Iterator[Shape]:
    """Everything started (``port`` 0: a free one) and stopped again after the block; the
    database is migrated, never dropped. Logs go to ``logs`` (default: the work directory, which
    is removed afterwards). ``tls``: a directory made by ``make_certificate`` (default: a new one)."""
    port = port or free_port()
    public_url = f"https://{host}" + ("" if port == 443 else f":{port}")
    workdir = Path(tempfile.mkdtemp(prefix="svara-shape-"))
    logs = logs or workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = shape_env(
        database_url=database_url,
        redis_url=redis_url,
        public_url=public_url,
        workdir=workdir,
        prefix=prefix or f"svara:shape:{secrets.token_hex(4)}:",
        secret_key=secret_key or secrets.token_urlsafe(50),
    )
    try:
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "build_catalogues")
        _manage(env, "collectstatic", "--noinput", "-v", "0")
        if tls is None:
            make_certificate(workdir / "tls", host)
        else:
            shutil.copytree(tls, workdir / "tls")
        authority = workdir / "tls" / "ca.pem"
        with ExitStack() as stack:
            servers: list[Daphne] = []
            shape_web = servers  # restarted processes replace their entry: stop whichever runs
            for i in range(web):
                server = Daphne.start(env=env, log=logs / f"daphne-{i}.log", options=DAPHNE_OPTIONS)
                stack.callback(lambda i=i: shape_web[i].stop())
                servers.append(server)
            worker = TableWorker.start(env=env, log=logs / "worker.log")
            stack.callback(worker.stop)
            nginx, site = stack.enter_context(
                nginx_in_front(
                    public_url=public_url,
                    web_ports=tuple(s.port for s in servers),
                    static_root=workdir / "static",
                    tls=workdir / "tls",
                    workdir=workdir,
                    logs=logs,
                )
            )
            shape = Shape(
                public_url=public_url,
                host=host,
                port=port,
                env=env,
                web=servers,
                worker=worker,
                nginx=nginx,
                ca_file=authority,
                workdir=workdir,
                logs=logs,
                site=site,
            )
            yield shape
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", type=int, default=2, help="Daphne processes behind nginx")
    parser.add_argument("--port", type=int, default=8443, help="nginx's https port on 127.0.0.1")
    parser.add_argument("--host", default="localhost", help="the public host name (PUBLIC_URL's)")
    args = parser.parse_args(argv)
    # Stopped by a signal (systemd, timeout), it still stops everything it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    database_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")) or not redis_url:
        raise SystemExit("deploy.local: set DATABASE_URL (PostgreSQL) and REDIS_URL: the shape runs on both")
    with production_shape(
        database_url=database_url, redis_url=redis_url, web=args.web, host=args.host, port=args.port
    ) as shape:
        ports = ", ".join(str(s.port) for s in shape.web)
        print(f"Serving {shape.public_url}/ through nginx; Daphne on {ports}, the table worker beside them.")
        print(f"Certificate authority of this run: {shape.ca_file}; logs in {shape.logs}. Ctrl-C stops.")
        try:
            while all(p.alive for p in [*shape.web, shape.worker, shape.nginx]):
                time.sleep(1)
            print("a process exited; stopping", file=sys.stderr)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
