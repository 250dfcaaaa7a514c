"""The best-response tool: its abstraction, its prior, the tree built on the engine, and the check
in the real game (a sound exploiter wins, a silly one loses)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.best_response import (
    CLASSES,
    MAX_RAISES,
    Exploiter,
    Tree,
    check,
    main,
    prior,
    raise_sizes,
    solve,
)
from games.engine.bots import POINT_VALUES
from games.engine.scoring import ALL_HANDS, score_cards


def test_raise_sizes_are_distinct_within_the_range_and_only_the_cap_after_the_last_raise() -> None:
    sizes = raise_sizes(target=20, pot=30, to_call=20, low=30, high=490, raises=0)
    assert sizes == {"max": 490, "x4": 220, "x2": 120, "pot": 70, "half": 40, "min": 30}
    # Near the cap the big sizes are the cap: one name for each amount, the cap's first.
    assert raise_sizes(target=200, pot=420, to_call=0, low=210, high=490, raises=1) == {
        "max": 490,
        "half": 410,
        "min": 210,
    }
    assert raise_sizes(target=20, pot=30, to_call=20, low=30, high=490, raises=MAX_RAISES) == {"max": 490}


def test_the_prior_is_the_deal_with_card_removal() -> None:
    joint = prior()
    assert abs(sum(map(sum, joint)) - 1) < 1e-12
    counts = Counter(score_cards(h) for h in ALL_HANDS)  # RULES.md §2's distribution
    for i, value in enumerate(POINT_VALUES):
        assert abs(sum(joint[i]) - counts[value] / 4960) < 1e-12
    # Four hands of 34 use all four sevens: two of them are never dealt together.
    assert joint[POINT_VALUES.index(34)][POINT_VALUES.index(34)] == 0


def test_the_tree_follows_the_engine_dark_round_and_the_bots_choices() -> None:
    tree = Tree(me=0, level="easy", samples=2, seed=1)
    root = tree.nodes[()]
    assert (root.seat, root.phase) == (1, "dark")  # the non-dealer is first to bet dark
    # Easy never bets dark: the only branch the bot takes is a decline, with probability 1.
    assert root.probs is not None and list(root.probs) == [("decline", "")]
    assert root.probs[("decline", "")] == [1.0] * CLASSES
    assert tree.decide_calls > 0


def test_a_best_response_beats_easy_in_the_real_game_and_a_folding_one_loses() -> None:
    joint = prior()
    trees = [Tree(me=me, level="easy", samples=3, seed=me) for me in (0, 1)]
    solved = [solve(tree, joint) for tree in trees]
    assert sum(v for v, _ in solved) / 2 > 5  # easy is a calling station: value bets win
    exploiters = [Exploiter(t, s) for t, (_, s) in zip(trees, solved)]
    won = check("easy", exploiters, deals=40, seed=1)
    assert sum(won) / len(won) > 5
    assert sum(e.moves for e in exploiters) > 0
    # The same check with a strategy that folds (and declines) everywhere must lose about the antes.
    folding = [
        Exploiter(t, {k: [("decline" if t.nodes[k].phase == "dark" else "fold", "")] * CLASSES for k in s})
        for t, (_, s) in zip(trees, solved)
    ]
    lost = check("easy", folding, deals=40, seed=1)
    assert sum(lost) / len(lost) < -5


def test_the_cli_writes_a_table_and_json_with_both_figures(tmp_path: Path) -> None:
    out = tmp_path / "best_response.json"
    main(["--level", "normal", "--deals", "20", "--samples", "2", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["level"] == "normal" and data["real"]["pairs"] == 20
    assert data["real"]["low"] <= data["real"]["mean"] <= data["real"]["high"]
    assert set(data["predicted"]) == {"mean", "as_dealer", "as_non_dealer"}
    assert data["tree_nodes"] > 10 and data["exploiter_moves"] > 0


def test_the_exploiters_raise_sizes_are_a_choice() -> None:
    tree = Tree(me=0, level="easy", samples=1, seed=1, pot_sizes=(("x3", 3.0),))
    mine = [node for node in tree.nodes.values() if node.seat == 0]
    labels = {label for node in mine for verb, label in node.options if verb == "raise"}
    assert labels == {"min", "x3", "max"}
