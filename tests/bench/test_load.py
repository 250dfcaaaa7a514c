"""The load benchmark's arithmetic: medians of repeated windows, ratios and verdicts on them."""

from __future__ import annotations

import asyncio
import json
import time

from bench.load import (
    Pending,
    Players,
    Row,
    Window,
    _table_counts,
    medians,
    parse_args,
    ratios,
    start_tables,
    verdicts,
)


def row(app: str, mode: str, rate: float, p99: float, *, lost: int = 0, cpu: float = 50.0) -> Row:
    return Row(
        app=app,
        servers=1,
        mode=mode,
        tables=200,
        sockets=400,
        seconds=20.0,
        actions=int(rate * 20),
        actions_per_s=rate,
        p50_ms=p99 / 4,
        p95_ms=p99 / 2,
        p99_ms=p99,
        max_ms=p99 * 1.5,
        peak_per_s=int(rate * 1.5),
        lost=lost,
        refused=0,
        server_cpu_pct=[cpu],
        client_cpu_pct=10.0,
    )


def test_repeated_windows_give_their_median_and_every_loss():
    windows = [row("svara", "paced", 90, 400, lost=1), row("svara", "paced", 110, 30)]
    windows.append(row("svara", "paced", 100, 45))

    (summary,) = medians(windows)

    assert (summary.actions_per_s, summary.p99_ms, summary.server_cpu_pct) == (100, 45, [50.0])
    assert summary.lost == 1 and summary.actions == sum(w.actions for w in windows)
    assert summary.max_ms == 600  # the worst window's worst


def test_targets_are_judged_on_the_medians():
    rows = [row("svara", "paced", 100, p99) for p99 in (30, 40, 400)]
    rows += [row("svara", "unpaced", rate, 100) for rate in (160, 170, 40)]
    rows += [row("relay", "unpaced", rate, 10) for rate in (300, 310, 320)]
    rows += [row("stock-relay", "unpaced", rate, 10) for rate in (200, 400, 350)]

    summary = medians(rows)

    assert verdicts(summary) == {
        "paced_1_process_p99_under_50ms_no_loss": True,
        "unpaced_1_process_at_least_half_the_tuned_relay": True,
        "unpaced_1_process_at_least_half_the_stock_relay": False,
    }
    assert [(r["relay"], r["actions_per_s_ratio"]) for r in ratios(summary)] == [
        ("relay", 0.52),
        ("stock-relay", 0.46),
    ]


def test_a_window_counts_the_actions_sent_in_it_however_late_their_update_comes():
    players = Players(app="svara", tables=[1], raise_to=60, seed=1)
    window = players.window = Window(start=100.0, end=120.0)

    players._done(Pending(version=3, sent=119.9, waiting=set()), now=125.0, table=1)  # sent in, done after
    players._done(Pending(version=4, sent=120.0, waiting=set()), now=120.5, table=2)  # sent after the end
    players._done(Pending(version=2, sent=99.0, waiting=set()), now=100.5, table=3)  # sent before the start

    assert [round(x, 6) for x in window.latencies] == [5.1]
    assert window.tables_moving == {1}  # only the table whose move counted was moving in the window


def test_pause_ms_shortens_both_pauses_of_the_servers_and_only_when_asked():
    from bench.load import pause_env

    assert parse_args([]).pause_ms is None and pause_env(None) == {}
    assert pause_env(parse_args(["--pause-ms", "250"]).pause_ms) == {
        "LIVE_START_DELAY_MS": "250",
        "LIVE_SHOWDOWN_PAUSE_MS": "250",
    }


class _RecordingSocket:
    def __init__(self, sent: list) -> None:
        self.sent = sent

    async def send(self, text: str) -> None:
        self.sent.append((time.perf_counter(), json.loads(text)))


def test_tables_start_at_random_moments_over_the_spread():
    players = Players(app="svara", tables=list(range(1, 41)), raise_to=60, seed=3)
    sent: list = []
    for table in players.tables:
        for seat in table.seats:
            seat.ws = _RecordingSocket(sent)

    began = time.perf_counter()
    asyncio.run(start_tables(players, spread=0.4))

    sits = [(at - began, message) for at, message in sent]
    assert sorted((m["verb"], m["position"]) for _, m in sits) == sorted([("sit", "0"), ("sit", "1")] * 40)
    offsets = sorted(at for at, _ in sits)
    # Spread over the whole window, not all at once and not in a burst at its end.
    assert offsets[-1] < 0.4 + 0.2
    assert offsets[len(offsets) // 4] < 0.2 < offsets[3 * len(offsets) // 4]


def test_unpaced_may_run_on_its_own_number_of_tables():
    both = ["paced", "unpaced"]
    split = parse_args(["--unpaced-tables", "400"])
    assert _table_counts(both, parse_args([])) == [(200, both)]
    assert _table_counts(both, split) == [(200, ["paced"]), (400, ["unpaced"])]
    assert _table_counts(["unpaced"], split) == [(400, ["unpaced"])]
    assert _table_counts(["paced"], split) == [(200, ["paced"])]


def test_the_proxy_is_judged_against_the_direct_setup_of_the_same_run():
    direct = [row("svara", "paced", 100, 20), row("svara", "unpaced", 400, 300)]
    proxied = [row("svara", "paced", 100, 24), row("svara", "unpaced", 350, 320)]
    for r in proxied:
        r.via = "nginx"
    (summary_direct, *_), summary = medians(direct), medians(direct + proxied)
    assert len(summary) == 4  # direct and through nginx kept apart
    found = verdicts(summary)
    assert found["paced_1_process_nginx_adds_at_most_5ms_to_p99"] is True  # 24 <= 20 + 5
    assert found["unpaced_1_process_nginx_costs_at_most_10pct"] is False  # 350 < 0.9 * 400
    # The relay ratios and the older targets look at the direct rows only.
    assert all(r["servers"] == 1 for r in ratios(summary))
    assert summary_direct.via == "direct"
