"""The table frame's render, whole and split (games/tables/ui/regions.py), in one process.

For a heads-up table in its dark round: the whole frame of the player to act and of the other
player (``render_regions``, what the page paints and a table with two sockets sends), the shared
part (``render_shared``, once per version for every socket of a process), and each viewer's own
parts (``render_personal``: the player to act, the other player, a spectator). CPU microseconds a
render, the median of ``--repeat`` windows of ``--renders`` renders; writes
bench/results/render_split.json.

    python -m bench.render_split [--renders 300] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "render_split.json")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")
    os.environ.setdefault("DEBUG", "true")
    import django

    django.setup()
    from django.utils import translation

    from games.live import transitions as t
    from games.live.document import hand_of, new_table_doc, seat_entry
    from games.live.views import build_view, public_view
    from games.tables.ui.regions import render_personal, render_regions, render_shared

    table = {"id": 7, "name": "oak", "stake": 10, "seat_count": 6, "dark_play": True, "turn_seconds": 30}
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=uid, name=name, chips=500) for uid, name in ((1, "ann"), (2, "bob"))]
        + [None] * 4,
    )
    doc = t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    other = 3 - to_act
    results: dict[str, float] = {}
    with translation.override("en"):
        viewers = (("to act", to_act), ("other", other), ("spectator", None))
        views = {who: build_view(doc, user_id=uid, version=3) for who, uid in viewers}
        public = public_view(doc, version=3)
        cases = {
            "whole frame, player to act": lambda: render_regions(view=views["to act"]),
            "whole frame, other player": lambda: render_regions(view=views["other"]),
            "shared part (seated)": lambda: render_shared(public=public, seated=True),
            "own parts, player to act": lambda: render_personal(view=views["to act"]),
            "own parts, other player": lambda: render_personal(view=views["other"]),
            "own parts, spectator": lambda: render_personal(view=views["spectator"]),
        }
        for name, render in cases.items():
            render()
            windows = []
            for _ in range(args.repeat):
                started = time.process_time()
                for _ in range(args.renders):
                    render()
                windows.append((time.process_time() - started) / args.renders * 1e6)
            results[name] = statistics.median(windows)
    for name, us in results.items():
        print(f"{name:32} {us:7.0f} us")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figures = {"us_per_render": results, "load_avg": os.getloadavg()[0]}
    args.out.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
