"""A rolling restart measured: the production shape (deploy/local.py: nginx in front of the web
processes and the worker) with sockets and page loads going on while each web process in turn is
stopped (SIGTERM, as ``systemctl restart svara-web@PORT`` does) and started again.

    python -m bench.rolling_restart [--web 2] [--sockets 100] [--settle 3]

Sockets are lobby sockets through nginx (anyone may open one; each gets the table list on
connect). A dropped one reconnects at once, through nginx, and counts from its close to the
first frame of the new socket (a browser's htmx adds its own back-off, up to a second or two, to
that). Meanwhile a page is loaded through nginx every 100 ms; any answer but 200 is counted.
Prints a summary and writes bench/results/rolling_restart.json. Needs PostgreSQL and Redis
(--database-url, --redis-url, as bench/load.py).
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
    gaps: list[float] = field(default_factory=list)  # close to the next socket's first frame, s


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


async def load_pages(shape: Shape, statuses: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            status = (await asyncio.to_thread(shape.request, "/"))[0]
        except OSError:
            status = 0
        statuses.append(status)
        await asyncio.sleep(0.1)


async def measure(shape: Shape, *, sockets: int, settle: float) -> dict[str, Any]:
    stop = asyncio.Event()
    clients = [Client() for _ in range(sockets)]
    statuses: list[int] = []
    tasks = [asyncio.create_task(keep_open(shape, c, stop)) for c in clients]
    tasks.append(asyncio.create_task(load_pages(shape, statuses, stop)))
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
        dropped = [c for c in clients if any(started <= d <= back + settle for d in c.drops)]
        gaps = [g * 1000 for c in dropped for g in c.gaps[-1:]]
        restarts.append(
            {
                "process": index,
                "stop_s": round(stopped - started, 2),
                "start_s": round(back - stopped, 2),
                "sockets_dropped": len(dropped),
                "sockets_kept": sockets - len(dropped),
                "reconnected": len(gaps),
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
    return {"sockets": sockets, "restarts": restarts, "pages": len(statuses)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--sockets", type=int, default=100)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before and after each restart")
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
        result = asyncio.run(measure(shape, sockets=args.sockets, settle=args.settle))
    for r in result["restarts"]:
        print(
            f"web process {r['process']}: stopped in {r['stop_s']} s, up again in {r['start_s']} s; "
            f"{r['sockets_dropped']} sockets dropped, {r['reconnected']} back "
            f"(p50 {r['reconnect_ms_p50']} ms, max {r['reconnect_ms_max']} ms), "
            f"{r['sockets_kept']} untouched; "
            f"{r['pages_not_200']} of {r['pages']} page loads not 200"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
