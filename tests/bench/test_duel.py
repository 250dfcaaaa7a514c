"""The duplicate-match runner: baselines with known results, the threshold rule, the CLI and its JSON."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from bench.duel import deck_seed, duel, main, player, threshold_rule, tune_grid
from games.engine.bots import BotView, bot_view
from games.engine.hand import Hand
from games.engine.scoring import ALL_HANDS, score_cards


def test_always_fold_loses_exactly_the_ante_a_hand_to_always_call() -> None:
    # Non-dealer: a pass at T = 0 folds. Dealer: call opens the minimum, fold gives up the ante.
    results = duel(player("fold"), player("call"), deals=24, seed=deck_seed(1))
    assert results == [-10.0] * 24


def test_a_duplicate_match_is_zero_sum_between_two_fixed_players() -> None:
    # Same decks, seats swapped within each pair: B's result is exactly minus A's.
    a, b = player("call"), player("threshold:20:22")
    there = duel(a, b, deals=40, seed=deck_seed(3))
    back = duel(b, a, deals=40, seed=deck_seed(3))
    assert there == [-x for x in back]
    assert any(x != 0 for x in there)


def _betting_view(points_wanted: int) -> BotView:
    """The first betting decision of a fresh hand, the cards replaced by a hand of the wanted points."""
    hand = Hand.start(
        stake=10,
        names=["a", "b"],
        chips=[500, 500],
        dealer=0,
        dark_play=False,
        seeds={"server_seed": deck_seed(9), "client_seeds": ["t"], "nonce": 0},
    )
    view = bot_view(hand, 1)
    cards = next(h for h in ALL_HANDS if score_cards(h) == points_wanted)
    return dataclasses.replace(view, cards=tuple(cards), points=points_wanted)


@pytest.mark.parametrize(
    ("points", "move"), [(15, ("fold", None)), (20, ("raise", 10)), (21, ("raise", 10)), (22, ("raise", 490))]
)
def test_the_threshold_rule_opens_the_minimum_from_a_and_the_cap_from_b(points: int, move: tuple) -> None:
    rule = threshold_rule(call_at=20, max_at=22)
    assert rule(_betting_view(points), random.Random(0)) == move


def test_an_unknown_player_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="threshold:A:B"):
        player("threshold:20")
    with pytest.raises(SystemExit):
        main(["--a", "hardest", "--b", "call", "--deals", "2"])


def test_the_cli_writes_a_table_and_json_with_an_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "duel.json"
    main(["--a", "call", "--b", "fold", "--deals", "30", "--seed", "2", "--out", str(out)])
    row = json.loads(out.read_text())["results"][0]
    assert (row["a"], row["b"], row["pairs"]) == ("call", "fold", 30)
    assert row["mean"] == 10.0 and row["low"] == row["high"] == 10.0
    assert "call vs fold" in capsys.readouterr().out


def test_tune_plays_the_whole_grid_and_replays_the_best_on_fresh_decks(tmp_path: Path) -> None:
    out = tmp_path / "tune.json"
    main(["--tune", "easy", "--deals", "12", "--out", str(out)])
    data = json.loads(out.read_text())
    assert len(data["results"]) == len(tune_grid())
    best = data["best"]
    assert best["mean"] == max(r["mean"] for r in data["results"])
    assert best["confirmed"]["a"] == best["a"] and best["confirmed"]["pairs"] == 12


def test_several_opponents_in_one_run_give_one_row_each(tmp_path: Path) -> None:
    out = tmp_path / "duel.json"
    main(["--a", "call", "--b", "fold,call", "--deals", "10", "--out", str(out)])
    rows = json.loads(out.read_text())["results"]
    assert [(r["b"], r["mean"]) for r in rows] == [("fold", 10.0), ("call", 0.0)]
