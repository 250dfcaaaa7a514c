"""A rolling restart measured: the production shape (deploy/local.py: nginx in front of the web
processes and the worker) with sockets and page loads going on while each web process in turn is
stopped (SIGTERM, as ``systemctl restart svara-web@PORT`` does) and started again.

    python -m bench.rolling_restart [--web 2] [--sockets 100] [--settle 3] [--page-every 3] \
        [--back-within 10]

Sockets are lobby sockets through nginx (anyone may open one; each gets the table list on
connect). A dropped one reconnects at once, through nginx, and counts from its close to the
first frame of the new socket (a browser's htmx adds its own back-off, up to a second or two, to
that). Meanwhile a page is loaded through nginx every ``--page-every`` seconds (3 by default);
any answer but 200 is counted. Page loads are kept sparse on purpose: each successful one reset
nginx's failure count, so with one every 100 ms an upstream that locks processes out
(``max_fails=1``) looked clean, while with one every 3 s 22 of 40 sockets did not come back
(issue 31). After each restart it waits up to ``--back-within`` seconds for every dropped socket;
it exits 1 when one is not back by then. Prints a summary and writes
bench/results/rolling_restart.json. Needs PostgreSQL and Redis (--database-url, --redis-url, as
bench/load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from bench.load import RESULTS, bench_database
from deploy.local import Shape, production_shape

HOST = "rolling.svara.test"


@dataclass
class Client:
    frames: int = 0
    drops: list[float] = field(default_factory=list)  # when each socket closed
    # gaps[i]: from drops[i] to the next socket's first frame, s (missing while not back)
    gaps: list[float] = field(default_factory=list)

    def dropped_between(self, start: float, end: float) -> int | None:
        """The index of this client's first drop in [start, end], if any."""
        return next((i for i, d in enumerate(self.drops) if start <= d <= end), None)

    def back_after(self, index: int) -> bool:
        return len(self.gaps) > index


async def keep_open(shape: Shape, client: Client, stop: asyncio.Event) -> None:
    context = ssl.create_default_context(cafile=str(shape.ca_file))
    closed_at: float | None = None
    while not stop.is_set():
        try:
            async with websockets.connect(
                f"wss://{HOST}:{shape.port}/ws/lobby/",
                origin=shape.public_url,  # type: ignore[arg-type]
                ssl=context,
                host="127.0.0.1",
                port=shape.port,
                proxy=None,
                open_timeout=10,
            ) as ws:
                async for _frame in ws:
                    client.frames += 1
                    if closed_at is not None:
                        client.gaps.append(time.perf_counter() - closed_at)
                        closed_at = None
                    if stop.is_set():
                        return
        except (OSError, websockets.WebSocketException):
            await asyncio.sleep(0.05)
        if not stop.is_set() and closed_at is None:
            closed_at = time.perf_counter()
            client.drops.append(closed_at)


async def load_pages(shape: Shape, statuses: list[int], stop: asyncio.Event, *, every: float) -> None:
    while not stop.is_set():
        try:
            status = (await asyncio.to_thread(shape.request, "/"))[0]
        except OSError:
            status = 0
        statuses.append(status)
        await asyncio.sleep(every)


async def measure(
    shape: Shape, *, sockets: int, settle: float, page_every: float = 3.0, back_within: float = 10.0
) -> dict[str, Any]:
    stop = asyncio.Event()
    clients = [Client() for _ in range(sockets)]
    statuses: list[int] = []
    tasks = [asyncio.create_task(keep_open(shape, c, stop)) for c in clients]
    tasks.append(asyncio.create_task(load_pages(shape, statuses, stop, every=page_every)))
    while sum(1 for c in clients if c.frames) < sockets:
        await asyncio.sleep(0.1)
    restarts = []
    for index in range(len(shape.web)):
        await asyncio.sleep(settle)
        before = len(statuses)
        started = time.perf_counter()
        await asyncio.to_thread(shape.web[index].stop)
        stopped = time.perf_counter()
        await asyncio.to_thread(shape.start_web, index)
        back = time.perf_counter()
        await asyncio.sleep(settle)
        window = (started, back + settle)
        dropped = [(c, i) for c in clients if (i := c.dropped_between(*window)) is not None]
        waited = time.perf_counter()
        while not all(c.back_after(i) for c, i in dropped) and time.perf_counter() - waited < back_within:
            await asyncio.sleep(0.1)
        gaps = [c.gaps[i] * 1000 for c, i in dropped if c.back_after(i)]
        restarts.append(
            {
                "process": index,
                "stop_s": round(stopped - started, 2),
                "start_s": round(back - stopped, 2),
                "sockets_dropped": len(dropped),
                "sockets_kept": sockets - len(dropped),
                "reconnected": len(gaps),
                "not_back": len(dropped) - len(gaps),
                "reconnect_ms_p50": round(statistics.median(gaps), 1) if gaps else None,
                "reconnect_ms_max": round(max(gaps), 1) if gaps else None,
                "pages": len(statuses) - before,
                "pages_not_200": sum(1 for s in statuses[before:] if s != 200),
            }
        )
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "sockets": sockets,
        "page_every_s": page_every,
        "back_within_s": back_within,
        "restarts": restarts,
        "pages": len(statuses),
        "every_socket_back": all(r["not_back"] == 0 for r in restarts),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--sockets", type=int, default=100)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before and after each restart")
    parser.add_argument("--page-every", type=float, default=3.0, help="seconds between page loads")
    parser.add_argument(
        "--back-within", type=float, default=10.0, help="seconds a dropped socket may take to come back"
    )
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/svara"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--out", type=Path, default=RESULTS / "rolling_restart.json")
    args = parser.parse_args(argv)
    with (
        bench_database(args.database_url) as database_url,
        production_shape(
            database_url=database_url, redis_url=args.redis_url, web=args.web, host=HOST
        ) as shape,
    ):
        result = asyncio.run(
            measure(
                shape,
                sockets=args.sockets,
                settle=args.settle,
                page_every=args.page_every,
                back_within=args.back_within,
            )
        )
    for r in result["restarts"]:
        print(
            f"web process {r['process']}: stopped in {r['stop_s']} s, up again in {r['start_s']} s; "
            f"{r['sockets_dropped']} sockets dropped, {r['reconnected']} back, {r['not_back']} not "
            f"(p50 {r['reconnect_ms_p50']} ms, max {r['reconnect_ms_max']} ms), "
            f"{r['sockets_kept']} untouched; "
            f"{r['pages_not_200']} of {r['pages']} page loads not 200"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    if not result["every_socket_back"]:
        raise SystemExit(f"FAILED: sockets not back within {args.back_within} s of a restart")


if __name__ == "__main__":
    main()
