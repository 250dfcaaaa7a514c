"""The fault drill, short: every fault once while a room of scripted players plays on real servers
(bench/drill.py). Nothing lost, nothing stalled, nothing leaked, no traceback in any server log."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import drill

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.timeout(360)]


def test_a_short_drill_with_every_fault_loses_nothing(
    redis_url: str, postgres_db: None, tmp_path: Path
) -> None:
    import os

    report = drill.main(
        [
            "--tables", "16",
            "--seconds", "48",
            "--min-hands", "130",  # on a loaded machine it plays on a little longer
            "--max-seconds", "180",
            "--fault-every", "10",
            "--database-url", os.environ["DATABASE_URL"],
            "--redis-url", redis_url,
            "--log-dir", str(tmp_path / "logs"),
            "--out", str(tmp_path / "drill.json"),
        ]
    )  # fmt: skip
    assert [f["kind"] for f in report.faults][:4] == list(drill.FAULTS)  # each fault at least once
    assert report.hands_finished >= 100
    assert report.chips_lost == 0 and report.house_change == 0
    assert report.audit_ok, report.audit
    assert report.stalls == 0, report.faults
    assert report.leaked_frames == []
    assert report.tracebacks == []
    assert report.flood_closed_4008 and all(report.flood_closed_4008)
    assert report.reconnects > 0  # the players on a killed server came back on the other
    assert (tmp_path / "drill.json").exists()


def test_restless_players_who_chat_leave_and_hop_seats_lose_nothing(
    redis_url: str, postgres_db: None, tmp_path: Path
) -> None:
    """Issue 30's paths in a real room: leaves at any moment (a turn, a join window, the result
    pause), seats taken again by others, chat, with a Redis flush among them."""
    import os

    report = drill.main(
        [
            "--tables", "6",
            "--seconds", "30",
            "--min-hands", "20",
            "--max-seconds", "120",
            "--fault-every", "12",
            "--faults", "flush,kill-web",
            "--restless",
            "--database-url", os.environ["DATABASE_URL"],
            "--redis-url", redis_url,
            "--log-dir", str(tmp_path / "logs"),
            "--out", str(tmp_path / "drill.json"),
        ]
    )  # fmt: skip
    assert report.leaves_sent > 0 and report.chat_sent > 0  # the players were restless
    assert report.hands_finished >= 20
    assert report.chips_lost == 0 and report.house_change == 0
    assert report.audit_ok, report.audit
    assert report.leaked_frames == []
    assert report.tracebacks == []
