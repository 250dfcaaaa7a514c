"""Click to own update, in a real browser: how long from a player's click on a move until the table
shows what the move did (the frame swapped in and the page painted, with every effect of
static/js/table.js run), at a practice table on one Daphne process.

A fresh SQLite database in a temporary directory and the in-memory store, so it needs no service;
Chromium from /usr/bin/chromium through Playwright. For each click on a move button the page
records the time of the click, of the first frame after it that changed the table's version (the
swap, htmx:wsAfterMessage) and of the next paint after that (requestAnimationFrame: the effects'
handlers have run by then). Prints the medians and the 90th percentiles in milliseconds and writes
bench/results/click_update.json.

    python -m bench.click_update [--clicks 40] [--reduced-motion]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"

# The page's own clock: the click (captured before any handler), the swap of the next frame with a
# new version, and the paint after it.
RECORDER = """
window.__clicks = [];
let pending = null;
document.addEventListener("click", (e) => {
  if (e.target.closest("#table-actions .moves button")) {
    const version = document.getElementById("table-version");
    pending = { at: performance.now(), version: version ? version.dataset.version : "" };
  }
}, true);
document.addEventListener("htmx:wsAfterMessage", () => {
  const version = document.getElementById("table-version");
  if (!pending || !version || version.dataset.version === pending.version) return;
  const click = pending;
  pending = null;
  const swapped = performance.now() - click.at;
  requestAnimationFrame(() => window.__clicks.push([swapped, performance.now() - click.at]));
});
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(var_dir: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "svara_site.settings",
        "DEBUG": "true",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SVARA_VAR_DIR": var_dir,
        "DATABASE_URL": f"sqlite:///{var_dir}/click.sqlite3",
        "SOCKETS_PER_ADDRESS": "0",
    }
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    daphne = Path(sys.executable).parent / "daphne"
    proc = subprocess.Popen(
        [str(daphne), "-b", "127.0.0.1", "-p", str(port), "svara_site.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url + "/", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def _play(url: str, *, clicks: int, reduced_motion: bool) -> list[list[float]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
        context = browser.new_context(
            viewport={"width": 1280, "height": 860},
            reduced_motion="reduce" if reduced_motion else "no-preference",
        )
        context.add_init_script(RECORDER)
        page = context.new_page()
        page.goto(url + "/accounts/signup/")
        page.fill("#id_username", "clicker")
        page.fill("#id_email", "clicker@example.com")
        page.fill("#id_password1", "Click-bench-Pass-91")
        page.fill("#id_password2", "Click-bench-Pass-91")
        page.check("#id_adult")
        page.locator("main form:has(#id_email) button[type=submit]").click()
        page.wait_for_selector("#nav-balance")
        page.goto(url + "/practice/")
        page.locator("main form.practice-levels button[value=easy]").click()
        page.wait_for_url(re.compile(r"/table/\d+/$"))
        deadline = time.monotonic() + 30 + clicks * 10
        while len(page.evaluate("window.__clicks")) < clicks and time.monotonic() < deadline:
            moves = page.locator("#table-actions .moves")
            if not moves.count():
                if page.locator("#table-actions .newgame-form button").count():
                    page.locator("#table-actions .newgame-form button").click()
                page.wait_for_timeout(100)
                continue
            # Call when there is something to call, else the least raise; decline a dark bet.
            for verb in ("decline", "call", "raise"):
                button = page.locator(f"#table-actions .moves button.verb-{verb}")
                if button.count():
                    button.first.click()
                    break
            page.wait_for_timeout(400)  # the page settles before the next click
        timings = page.evaluate("window.__clicks")
        browser.close()
    return timings


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered), 1),
        "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
        "max": round(ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=40)
    parser.add_argument("--reduced-motion", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "click_update.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var_dir:
        proc, url = _serve(var_dir)
        try:
            timings = _play(url, clicks=args.clicks, reduced_motion=args.reduced_motion)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    if not timings:
        raise SystemExit("no click was measured")
    swap, paint = _summary([t[0] for t in timings]), _summary([t[1] for t in timings])
    print(f"{'ms, ' + str(len(timings)) + ' clicks':24} {'median':>8} {'p90':>8} {'max':>8}")
    for name, row in (("click to swap", swap), ("click to paint", paint)):
        print(f"{name:24} {row['median']:>8} {row['p90']:>8} {row['max']:>8}")
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "clicks": len(timings),
        "reduced_motion": args.reduced_motion,
        "click_to_swap_ms": swap,
        "click_to_paint_ms": paint,
        "load_average": os.getloadavg(),
    }
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
