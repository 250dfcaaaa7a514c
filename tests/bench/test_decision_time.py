"""The decision-time benchmark times every decision of each level in real hands and says whether
the p99 meets the target."""

from __future__ import annotations

import json
from pathlib import Path

from bench.decision_time import main, percentile


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0


def test_every_level_is_timed_and_written(tmp_path: Path) -> None:
    out = tmp_path / "decision_time.json"
    main(["--deals", "5", "--out", str(out)])
    data = json.loads(out.read_text())
    assert set(data["levels"]) == {"easy", "normal", "hard"}
    for row in data["levels"].values():
        assert row["moves"] >= 10 and 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
        assert row["met"] == (row["p99_ms"] < 20) and row["met_cpu"] == (row["cpu_p99_ms"] < 20)
        assert 0 <= row["cpu_p50_ms"] <= row["cpu_p99_ms"] <= row["cpu_max_ms"]
