"""Checking stored hands and series files offline: games.engine.verify and ``python -m games.engine
verify``, which name the hand and what differs in a tampered file."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.verify import check_hand, check_series
from tests.engine.seriesfiles import SEED, played_record, series_file
from tests.engine.test_cli_properties import json_values, run_main

GOOD = series_file(4)


def test_a_series_as_the_site_writes_it_checks_out():
    assert check_series(GOOD) == []
    for record in GOOD["hands"]:
        assert check_hand(record, server_seed=SEED, server_seed_hash=GOOD["server_seed_hash"]) == []


def test_a_changed_deck_is_named_by_hand_deck_and_card():
    bad = copy.deepcopy(GOOD)
    deck = bad["hands"][1]["decks"][0]
    deck[0], deck[1] = deck[1], deck[0]
    problems = check_series(bad)
    assert any(p.startswith("hand 7-2: deck 1 (the first deal), card 1: the hand shows") for p in problems)
    assert any("hand 7-3 links to" in p for p in problems)  # and the chain after it breaks


def test_a_changed_result_is_named_with_the_field_that_differs():
    bad = copy.deepcopy(GOOD)
    bad["hands"][0]["result"]["pot"] += 5
    problems = check_series(bad)
    assert any("hand 7-1: its replay gives pot = " in p and "the stored result says" in p for p in problems)


def test_another_seed_a_wrong_hash_or_hands_out_of_order_are_found():
    other = played_record(number=9, seed="ff" * 32)
    bad = copy.deepcopy(GOOD)
    bad["hands"].append(other)
    problems = check_series(bad)
    assert any("hand 7-9 shows server seed" in p for p in problems)
    wrong = {**GOOD, "server_seed_hash": "00" * 32}
    assert any("SHA-256 of the series' server seed" in p for p in check_series(wrong))
    shuffled = {**GOOD, "hands": [GOOD["hands"][1], GOOD["hands"][0], *GOOD["hands"][2:]]}
    assert any("not in order" in p for p in check_series(shuffled))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a series file is a JSON object"),
        ({"format": "x"}, "unknown format"),
        ({**GOOD, "server_seed": "zz"}, "the series' server seed"),
        ({**GOOD, "hands": None}, "no list of hands"),
    ],
)
def test_what_is_no_series_file_is_named_and_never_raises(data, message):
    assert any(message in p for p in check_series(data))


def test_a_sealed_hand_says_it_has_no_seed_yet():
    sealed = {**GOOD["hands"][0], "server_seed": ""}
    assert check_hand(sealed) == ["hand 7-1 holds no server seed: its series is not revealed yet"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", "verify", *args], capture_output=True, text=True, check=False
    )


def test_the_command_line_checks_a_series_file_and_names_what_differs(tmp_path):
    good = tmp_path / "series.json"
    good.write_text(json.dumps(GOOD), encoding="utf-8")
    answer = run(str(good))
    assert answer.returncode == 0 and answer.stdout.endswith("everything checks out\n")
    assert answer.stdout.startswith("ok  series 1 at table 7")
    bad = copy.deepcopy(GOOD)
    bad["hands"][2]["actions"].pop()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(bad), encoding="utf-8")
    answer = run(str(tampered))
    assert answer.returncode == 1 and answer.stdout.startswith("FAIL  series 1 at table 7")
    assert "hand 7-3" in answer.stdout and "does NOT check out" in answer.stdout


def test_the_command_line_checks_hand_files_and_the_chain_between_them(tmp_path):
    names = []
    for record in GOOD["hands"]:
        path = tmp_path / f"{record['hand_id']}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        names.append(str(path))
    answer = run(*reversed(names), "--head", GOOD["last_hash"])  # any order: checked by number
    assert answer.returncode == 0, answer.stdout
    answer = run(*(names[:1] + names[2:]))  # hand 7-2 left out
    assert answer.returncode == 1 and "hand 7-3 links to" in answer.stdout
    assert run(names[0], "--head", "ab" * 32).returncode == 1


def test_the_command_line_answers_2_for_a_file_it_cannot_read(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    answer = run(str(broken))
    assert answer.returncode == 2 and answer.stderr.startswith("error: not JSON")
    assert run(str(tmp_path / "missing.json")).returncode == 2


def _answers(stdin: bytes) -> tuple[int, bytes]:
    code, out, err = run_main(["verify", "-"], stdin)
    if code == 2:
        assert out == b"" and err.startswith(b"error: ") and err.count(b"\n") == 1
    else:
        assert code in (0, 1) and err == b""
        assert out.endswith(b"everything checks out\n" if code == 0 else b"does NOT check out\n")
    return code, out


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_verify_answers_any_json_without_a_traceback(value):
    _answers(json.dumps(value).encode())


@settings(max_examples=200, deadline=None)
@given(
    hand=st.integers(0, len(GOOD["hands"]) - 1),
    key=st.sampled_from(
        ["decks", "actions", "result", "client_seeds", "nonce", "players", "prev_hash", "stake"]
    ),
    value=json_values,
)
def test_any_value_put_into_a_series_file_is_answered_and_a_change_is_found(hand, key, value):
    changed = copy.deepcopy(GOOD)
    changed["hands"][hand][key] = value
    code, out = _answers(json.dumps(changed).encode())
    if value != GOOD["hands"][hand][key]:
        assert code == 1 and f"hand 7-{hand + 1}".encode() in out


def left_before_the_deal(number: int) -> dict:
    """Hand ``number`` of the series whose dark round ended because two of its three players left."""
    from games.engine.fairness import seed_hash
    from games.engine.hand import Hand
    from games.engine.handfile import hand_file_of, hand_result

    client_seeds = [f"c{number}-{name}" for name in ("ann", "bob", "cat")]
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cat"],
        chips=[500, 500, 500],
        dealer=0,
        seeds={"server_seed": SEED, "client_seeds": client_seeds, "nonce": number},
    )
    hand.act(2, "leave")
    hand.act(1, "leave")
    assert hand.finished and not hand.decks
    return {
        **hand_file_of(hand),
        "hand_id": f"7-{number}",
        "server_seed_hash": seed_hash(SEED),
        "server_seed": SEED,
        "client_seeds": client_seeds,
        "nonce": number,
        "result": hand_result(hand, refused=[]),
    }


def test_a_hand_ended_by_leaves_before_the_deal_checks_out_and_a_stripped_deck_does_not():
    from tests.engine.seriesfiles import chained

    record = left_before_the_deal(5)
    assert record["decks"] == [] and [a[1] for a in record["actions"]] == ["leave", "leave"]
    assert check_hand(record) == []
    hands, head = chained([*(copy.deepcopy(h) for h in GOOD["hands"]), record], first_prev=GOOD["first_prev"])
    assert check_series({**GOOD, "hands": hands, "last_hash": head}) == []
    # A dealt hand whose decks are taken out does not pass for one that ended before its deal.
    stripped = {**GOOD["hands"][0], "decks": []}
    assert any(
        "cannot be replayed: action" in p and "no deck for the deal" in p for p in check_hand(stripped)
    )
