"""bench.render_split runs and writes a figure for every render it times."""

from __future__ import annotations

import json

from bench import render_split


def test_every_render_is_timed(tmp_path):
    out = tmp_path / "render_split.json"
    render_split.main(["--renders", "2", "--repeat", "1", "--out", str(out)])
    figures = json.loads(out.read_text())["us_per_render"]
    assert len(figures) == 6 and all(us > 0 for us in figures.values())
