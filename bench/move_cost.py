"""What one move costs the serving process, in CPU time, by stage: a steadier figure than load.py's.

bench/load.py measures the whole machine (servers, worker, PostgreSQL, Redis and the players on
two shared cores), where one code's 20 s windows vary by a third. This drives the same service
functions in one process, on the real Redis store and channel layer, for heads-up tables played
by the load bench's script (raise by the minimum while it is at most --raise-to, then call), and
times each stage in CPU time of this process:

- command: ``service.table_act`` (the compare-and-set in Redis, the engine, the announcement);
- views: ``build_view`` for both players (each socket builds its own viewer's: data, no words);
- render: ``render_regions`` of both views (each socket renders its own frame, the log's words and
  the cards included);
- hand: what each hand adds between moves, per move: marking it settled and dealing the next
  (the documents, the writes and their announcements; not the database, which the worker does).

Run it on two builds in alternation to compare them (``--repeat`` windows each). Prints a table
(median, min and max of the windows, microseconds per move) and writes bench/results/move_cost.json.
Needs Redis (--redis-url; a key prefix of its own, removed at the end).

    python -m bench.move_cost [--tables 50] [--moves 3000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.live.document import new_table_doc, seat_entry

RESULTS = Path(__file__).resolve().parent / "results"
STAGES = ("command", "views", "render", "hand")


@dataclass(frozen=True)
class Player:
    """What ``table_act`` needs of a user."""

    pk: int


def _setup(redis_url: str, prefix: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")
    os.environ["REDIS_URL"] = redis_url
    os.environ["LIVE_STATE_PREFIX"] = prefix
    # The serving side of the table worker's setup: no hand is settled inline (no database).
    os.environ["LIVE_TABLE_WORKER"] = "1"
    import django

    django.setup()
    from svara_site.serving import tune_garbage_collector

    tune_garbage_collector()  # as a serving process does (svara_site/asgi.py)


def _new_doc(table_id: int) -> dict[str, Any]:

    seats = [
        seat_entry(user_id=table_id * 10 + i, name=f"bench{table_id}p{i}", chips=100_000) for i in range(2)
    ]
    settings = {
        "id": table_id,
        "name": f"bench {table_id}",
        "stake": 10,
        "seat_count": 2,
        "dark_play": False,
        "turn_seconds": 30,
        "status": "open",
        "private": False,
        "kind": "cash",
    }
    doc = new_table_doc(table=settings, seats=seats)
    doc["epoch"] = secrets.token_hex(4)
    return doc


def _choose(actions: dict[str, Any], *, raise_to: int) -> tuple[str, int | None]:
    raising = actions.get("raise")
    if raising and raising["min"] <= raise_to:
        return "raise", raising["min"]
    for verb in ("call", "skip", "fold", "decline"):
        if verb in actions["verbs"]:
            return verb, None
    return actions["verbs"][0], None


class Clock:
    """CPU seconds of this process spent in each stage."""

    def __init__(self) -> None:
        self.spent = dict.fromkeys(STAGES, 0.0)
        self._stage = ""
        self._since = 0.0

    def start(self, stage: str) -> None:
        self._stage, self._since = stage, time.process_time()

    def stop(self) -> None:
        self.spent[self._stage] += time.process_time() - self._since


async def _next_hand(table_id: int, clock: Clock, number: int) -> None:
    from games.live import service
    from games.live import transitions as t

    clock.start("hand")
    now = time.time()
    await service.update_table(
        table_id, lambda s: t.mark_settled(s.doc, now=now, left=[]), settle_ended=False
    )
    await service.update_table(
        table_id,
        lambda s: t.start_hand(s.doc, number=number, now=now, started_at="2026-01-01T00:00:00+00:00"),
    )
    clock.stop()


async def _window(tables: list[int], *, moves: int, raise_to: int, hands: dict[int, int]) -> dict[str, float]:
    from django.utils import translation

    from games.live import service
    from games.live.store import get_state_store
    from games.live.transitions import end_svara_pause
    from games.live.views import build_view
    from games.tables.ui.regions import render_regions

    store = get_state_store()
    clock = Clock()
    done = 0
    while done < moves:
        for table_id in tables:
            state = store.recent(str(table_id)) or await store.get(str(table_id))
            assert state is not None
            if state.doc["ended"] or not state.doc["hand"]:
                hands[table_id] += 1
                await _next_hand(table_id, clock, hands[table_id])
                continue
            players = [seat["user_id"] for seat in state.doc["seats"]]
            with translation.override("en"):
                clock.start("views")
                views = [build_view(state.doc, user_id=uid, version=state.version) for uid in players]
                clock.stop()
                clock.start("render")
                for view in views:
                    render_regions(view=view)
                clock.stop()
            actor = next((view for view in views if view["actions"]), None)
            if actor is None:  # a svara's pause: its timer deals the replay, as here
                await service.update_table(table_id, lambda s: end_svara_pause(s.doc, now=time.time()))
                continue
            verb, amount = _choose(actor["actions"], raise_to=raise_to)
            clock.start("command")
            await service.table_act(
                user=Player(pk=actor["seats"][actor["my_position"]]["user_id"]),
                table_id=table_id,
                verb=verb,
                amount=amount,
                client_version=state.version,
                action_id=secrets.token_hex(8),
            )
            clock.stop()
            done += 1
    return {stage: seconds / done * 1e6 for stage, seconds in clock.spent.items()}


async def run(*, tables: int, moves: int, repeat: int, raise_to: int) -> list[dict[str, float]]:
    from games.live.store import get_state_store

    store = get_state_store()
    ids = list(range(1, tables + 1))
    for table_id in ids:
        await store.create(str(table_id), _new_doc(table_id))
    hands = dict.fromkeys(ids, 0)
    await _window(ids, moves=moves // 4, raise_to=raise_to, hands=hands)  # warm-up
    windows = []
    for _ in range(repeat):
        windows.append(await _window(ids, moves=moves, raise_to=raise_to, hands=hands))
    for table_id in ids:
        await store.delete(str(table_id))
    await store.aclose()
    return windows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--moves", type=int, default=3000, help="moves per measured window")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--raise-to", type=int, default=60)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--out", type=Path, default=RESULTS / "move_cost.json")
    args = parser.parse_args()
    prefix = f"svara:movecost:{secrets.token_hex(4)}:"
    _setup(args.redis_url, prefix)
    windows = asyncio.run(
        run(tables=args.tables, moves=args.moves, repeat=args.repeat, raise_to=args.raise_to)
    )
    rows = {}
    print(f"{'stage':<10} {'median us':>10} {'min':>8} {'max':>8}   (CPU per move, {args.repeat} windows)")
    for stage in (*STAGES, "total"):
        values = [sum(w.values()) if stage == "total" else w[stage] for w in windows]
        rows[stage] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
        row = rows[stage]
        print(f"{stage:<10} {row['median']:>10.1f} {row['min']:>8.1f} {row['max']:>8.1f}")
    out = {
        "tables": args.tables,
        "moves_per_window": args.moves,
        "windows": windows,
        "us_per_move": rows,
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
