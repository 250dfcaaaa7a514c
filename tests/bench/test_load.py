"""The load benchmark's arithmetic: medians of repeated windows, ratios and verdicts on them."""

from __future__ import annotations

from bench.load import Row, medians, ratios, verdicts


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

    summary = medians(rows)

    assert verdicts(summary) == {
        "paced_1_process_p99_under_50ms_no_loss": True,
        "unpaced_1_process_at_least_half_the_relay": True,
    }
    assert [r["actions_per_s_ratio"] for r in ratios(summary)] == [0.52]
