"""Browser tests: the site served by a real Daphne process, driven by Playwright on the system Chromium.

One server per test module (``site_server``), on its own database: a fresh PostgreSQL database when
DATABASE_URL points at PostgreSQL (dropped afterwards), else an SQLite file in a temporary directory;
the same REDIS_URL as the test run, under a key prefix of its own. The browser is Debian's Chromium
(Playwright cannot download one here). Without /usr/bin/chromium the tests skip outside CI and fail
in CI (tests/conftest.py, ``service_missing``). Screenshots and the server's log go to test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.conftest import IN_CI, service_missing

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@dataclass
class LiveServer:
    url: str
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)  # the server's settings, for manage()

    def manage(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run a manage.py command against the server's database (a staff account, say)."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _postgres_database(url: str, name: str, *, create: bool) -> str:
    """Drop (and create) database ``name`` on the server of ``url``; return the URL pointing at it."""
    import psycopg

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


def _wait_until_serving(url: str, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"daphne did not answer at {url} within {timeout} s")


@pytest.fixture(scope="module")
def chromium_path() -> str:
    if not os.path.exists(CHROMIUM):
        service_missing(f"{CHROMIUM} is missing (apt-get install chromium)", required=IN_CI)
    return CHROMIUM


@pytest.fixture(autouse=True)
def server_log_without_tracebacks(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each browser test, the server's log since it began holds no traceback: a page that
    looked right over an exception in the server is not right."""
    if "site_server" not in request.fixturenames:
        yield
        return
    server: LiveServer = request.getfixturevalue("site_server")
    start = server.log_path.stat().st_size if server.log_path.exists() else 0
    yield
    with server.log_path.open(errors="replace") as log:
        log.seek(start)
        written = log.read()
    if "Traceback (most recent call last)" in written:
        at = written.index("Traceback (most recent call last)")
        pytest.fail(
            f"the server logged a traceback during the test:\n{written[max(0, at - 300) : at + 3000]}"
        )


@pytest.fixture(scope="module")
def site_server(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("e2e-server")
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "svara_site.test_settings",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PORT": str(port),
        "SVARA_VAR_DIR": str(tmp),
        "DEBUG": "true",
        # Table ids start again in the fresh database while Redis outlives runs: a key prefix of its own.
        "LIVE_STATE_PREFIX": f"svara:e2e:{uuid.uuid4().hex}:",
        "PYTHONUNBUFFERED": "1",
        # Every browser of every test here comes from 127.0.0.1 to this one server, all session
        # long: the per-address socket limit (48, issue 37) would start closing the later tests'
        # sockets (4429) and their "Sit here" would never land. The per-account limit stays on.
        "SOCKETS_PER_ADDRESS": "0",
    }
    database_url = os.environ.get("DATABASE_URL", "")
    pg_name = None
    if database_url.startswith(("postgres://", "postgresql://")):
        pg_name = f"svara_e2e_{os.getpid()}"
        env["DATABASE_URL"] = _postgres_database(database_url, pg_name, create=True)
    else:
        env["DATABASE_URL"] = f"sqlite:///{tmp / 'e2e.sqlite3'}"
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=180,
    )
    log_path = ARTIFACTS / "e2e-daphne.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [str(bin_dir / "daphne"), "-b", "127.0.0.1", "-p", str(port), "svara_site.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(url + "/", proc)
        yield LiveServer(url=url, log_path=log_path, env=env)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if pg_name:
            _postgres_database(database_url, pg_name, create=False)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def sign_up_in(page: Page, url: str, name: str, password: str = "Svara-e2e-Pass-91") -> None:
    """Sign up through the real form as ``name`` and wait for the header's wallet (signed in)."""
    page.goto(url + "/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", password)
    page.fill("#id_password2", password)
    page.check("#id_adult")
    page.locator("main form:has(#id_email) button[type=submit]").click()
    page.wait_for_selector("#nav-balance")
