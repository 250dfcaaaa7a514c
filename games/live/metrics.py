"""The room's Prometheus metrics that code in play updates (prometheus_client, one registry per
process). Each process exposes its own at ``/metrics`` (svara_site/metrics.py), the table worker
on ``WORKER_METRICS_PORT``: sockets, moves and refused frames are counted where they happen, so a
scrape of every process adds up to the room. What the room as a whole holds (tables in the store,
the worker's lease, overdue deadlines) is read from Redis at scrape time (games/live/watch.py)."""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Gauge, Histogram

SOCKETS: Final = Gauge("svara_sockets_open", "WebSockets open in this process", ["kind"])
SOCKETS_OPENED: Final = Counter("svara_sockets_opened", "WebSockets accepted by this process", ["kind"])
MOVES: Final = Counter("svara_moves", "players' moves applied by this process (rate(...[1m]): moves/s)")
REFUSED: Final = Counter(
    "svara_frames_refused",
    "socket messages refused: unreadable or refused commands, or a socket closed for flooding",
    ["reason"],
)
COLLAPSED: Final = Counter(
    "svara_updates_collapsed",
    "table updates a socket behind its table skipped for the newest version (a frame is the whole table)",
)
LATENESS: Final = Histogram(
    "svara_deadline_lateness_seconds",
    "how late a table's deadline (turn, deal, settlement) fired, by this process's clock",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
SETTLEMENT: Final = Histogram(
    "svara_settlement_seconds",
    "writing an ended hand to the database (ledger, stored hand, standings)",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
HANDS_SETTLED: Final = Counter(
    "svara_hands_settled",
    "hands settled and committed by this process (games/live/settled.py's counts), by table kind",
    ["kind"],
)
ERRORS: Final = Counter("svara_errors", "log records at ERROR or above, by logger", ["logger"])


def socket_kind(path: str) -> str:
    """The label of a socket's path: ``table``, ``lobby`` or ``other`` (never the table id)."""
    for kind in ("table", "lobby"):
        if path.startswith(f"/ws/{kind}"):
            return kind
    return "other"
