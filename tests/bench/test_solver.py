"""The CFR+ solver: its trees are the engine's (a deal and a svara replay), CFR+ lowers its
exploitability, and the strategy file it writes plays legal moves in the real game through the
engine's own lookup."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench.best_response import main as best_response
from bench.solver import Abstraction, CfrPlayer, Game, Root, Solver, main, play

SMALL = Abstraction((("pot", 1.0), ("x2", 2.0)), 3)  # a small tree: fast tests


@pytest.fixture(scope="module")
def game() -> Game:
    return Game(SMALL)


def test_the_tree_starts_with_the_non_dealers_dark_choice_and_ends_in_folds_and_showdowns(game: Game) -> None:
    assert (game.seat[0], game.dark[0], game.actions[0]) == (1, True, [("dark", ""), ("decline", "")])
    kinds = {kind for kind, _ in game.terminals}
    assert kinds == {"fold", "show"}
    # The cheapest ending: the non-dealer declines the dark bet and passes, the dealer wins the ante.
    assert ("fold", 10.0) in game.terminals


def test_a_replay_tree_starts_after_the_tie_with_the_pot_carried_and_no_dark_round() -> None:
    replay = Game(SMALL, Root("replay", 45, 6))
    assert (replay.seat[0], replay.dark[0]) == (1, False)
    assert not any(replay.dark)
    # The non-dealer passes at once: the dealer wins the carried pot, half of which was its own.
    assert ("fold", 30.0) in replay.terminals
    with pytest.raises(ValueError, match="even number"):
        Root("replay", 45, 5).hand()


def test_cfr_plus_lowers_the_exploitability_in_the_abstraction(game: Game) -> None:
    solver = Solver(game)
    solver.iterate(5)
    early = solver.exploitability()
    solver.iterate(55)
    late = solver.exploitability()
    assert 0 <= late < early / 2
    assert late < 5  # chips a hand after 60 iterations (about 2.4 here; 35 after 5)


def test_the_strategy_file_plays_legal_moves_and_beats_always_call(tmp_path: Path) -> None:
    out, report = tmp_path / "hard.json.gz", tmp_path / "solver.json"
    small = ["--sizes", "pot:1,x2:2", "--max-raises", "3", "--depths", "50", "--replays", "45:6"]
    runs = ["--iterations", "60", "--replay-iterations", "30", "--report", "30"]
    main([*runs, "--out", str(out), "--summary", str(report), *small])
    data = json.loads(gzip.decompress(out.read_bytes()))
    assert [(g["kind"], g["stack"], g["pot"]) for g in data["games"]] == [("deal", 49, 2), ("replay", 45, 6)]
    for g in data["games"]:
        for _seat, _actions, rows in g["nodes"].values():
            assert all(sum(row) == 1000 for row in rows)
    summary = json.loads(report.read_text())
    assert [h["iterations"] for h in summary["games"][0]["history"]] == [30, 60]
    cfr = CfrPlayer.load(out)
    won = play(cfr, "call", deals=40, seed=1)  # hand.act refuses any illegal move
    assert sum(won) / len(won) > 0
    assert cfr.off_tree == 0


def test_the_default_abstraction_has_the_best_responses_sizes_and_parses_back() -> None:
    parsed = Abstraction.parse("half:0.5,pot:1,x2:2,x4:4", 4)
    assert parsed == Abstraction()
    assert [label for label, _ in parsed.pot_sizes] == ["half", "pot", "x2", "x4"]


def test_the_best_response_tool_measures_a_saved_strategy(tmp_path: Path) -> None:
    strategy, out = tmp_path / "strategy.json.gz", tmp_path / "br.json"
    runs = ["--iterations", "30", "--replay-iterations", "10", "--report", "30"]
    small = ["--sizes", "pot:1", "--max-raises", "2", "--depths", "50", "--replays", "45:6"]
    main([*runs, "--out", str(strategy), "--summary", str(tmp_path / "s.json"), *small])
    best_response(
        ["--level", "cfr", "--strategy", str(strategy), "--deals", "20", "--samples", "1", "--out", str(out)]
    )
    data = json.loads(out.read_text())
    assert data["level"] == "cfr" and data["real"]["pairs"] == 20 and data["tree_nodes"] > 10
