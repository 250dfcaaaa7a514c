"""The serving-cost benchmark's arithmetic (bench/serving_cost.py; the run itself is bench.load's)."""

from __future__ import annotations

import pytest

from bench.serving_cost import per_move


def test_a_window_s_cpu_share_over_its_rate_is_the_cpu_a_move():
    row = {"server_cpu_pct": [90.0], "actions_per_s": 300.0, "worker_cpu_pct": 60.0, "p99_ms": 500.0}
    figures = per_move(row | {"lost": 0, "load_avg": 3.0})
    assert figures["serving_ms_per_move"] == pytest.approx(3.0)  # 0.9 s of CPU a second / 300 moves
    assert figures["worker_ms_per_move"] == pytest.approx(2.0)
    two = per_move(row | {"server_cpu_pct": [50.0, 40.0], "lost": 0, "load_avg": 3.0})
    assert two["serving_ms_per_move"] == pytest.approx(3.0)  # two servers' shares added


def test_a_window_with_no_moves_has_no_cost_a_move():
    row = {"server_cpu_pct": [5.0], "actions_per_s": 0.0, "worker_cpu_pct": 1.0, "p99_ms": 0.0}
    assert per_move(row | {"lost": 0, "load_avg": 1.0})["serving_ms_per_move"] is None
