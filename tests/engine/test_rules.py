"""The rules as one frozen, versioned value (games.engine.rules): RULES_V1 is the game as it has
always been played, a hand file ``svara-hand/2`` carries its rules, and an old hand replays and
verifies by its own rules while a replay under changed rules is refused loudly."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any

import pytest

from games.engine import table_rules
from games.engine.fairness import seed_hash
from games.engine.hand import Hand
from games.engine.handfile import FORMAT, HandFileError, hand_file_of, hand_result, load_hand_file, replay
from games.engine.rules import KNOWN, RULES_V1, SIT_AND_GO_V1, Rules, RulesError, rules_of_version
from games.engine.verify import check_hand
from tests.engine.test_cli_properties import run_main
from tests.engine.test_handfile import EXAMPLE

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
# A changed copy of the rules: a dark bet X is offered only while 4 X (not 2 X) is within the cap.
CHANGED = dataclasses.replace(RULES_V1, version=99, dark_cap=4)


def test_the_first_rules_are_the_numbers_the_game_has_always_had():
    assert RULES_V1.version == 1 and rules_of_version(1) is RULES_V1
    assert KNOWN == {1: RULES_V1, 2: SIT_AND_GO_V1} and SIT_AND_GO_V1.short_antes and not RULES_V1.short_antes
    assert table_rules.STAKES == (10, 50, 200, 1000) == RULES_V1.stakes
    assert (table_rules.MIN_SEATS, table_rules.MAX_SEATS) == (2, 6)
    assert table_rules.chips_to_be_dealt_in(50) == 100
    assert RULES_V1.dark_chain(stake=10, links=4) == (10, 20, 40, 80)
    assert [RULES_V1.join_fee(pot=p) for p in (134, 135)] == [67, 68]


def test_rules_are_frozen_and_checked():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RULES_V1.dark_cap = 4  # type: ignore[misc]
    for bad in ({"dark_cap": 0}, {"dark_growth": 1}, {"min_seats": 1}, {"stakes": ()}, {"raise_step": True}):
        with pytest.raises(RulesError):
            dataclasses.replace(RULES_V1, **bad)


def test_rules_round_trip_and_a_known_version_cannot_be_rewritten():
    assert Rules.from_json(RULES_V1.to_json()) is RULES_V1
    assert Rules.from_json(CHANGED.to_json()) == CHANGED
    with pytest.raises(RulesError, match="not rules version 1"):
        Rules.from_json({**RULES_V1.to_json(), "dark_cap": 4})
    with pytest.raises(RulesError, match="unknown rule 'house'"):
        Rules.from_json({"version": 1, "house": 1})
    for bad in (None, [], {"version": "1"}, {"version": 0}, {"version": True}):
        with pytest.raises(RulesError):
            Rules.from_json(bad)
    with pytest.raises(RulesError, match="unknown rules version 99"):
        rules_of_version(99)


def played(*, rules: Rules, number: int = 1) -> dict[str, Any]:
    """A stored hand as the site writes it: three players with 60 chips at stake 10, each betting
    dark whenever offered, then calling, skipping a svara or folding, whichever is allowed."""
    client_seeds = [f"c{number}-{n}" for n in ("ann", "bob", "cem")]
    hand = Hand.start(
        stake=10,
        names=["ann", "bob", "cem"],
        chips=[60, 60, 60],
        dealer=0,
        seeds={"server_seed": SEED, "client_seeds": client_seeds, "nonce": number},
        rules=rules,
    )
    while not hand.finished:
        legal = hand.legal()
        assert legal is not None
        verb = next(v for v in ("dark", "call", "skip", "fold") if v in legal.verbs)
        hand.act(legal.seat, verb)
    return {
        **hand_file_of(hand),
        "hand_id": f"7-{number}",
        "server_seed_hash": seed_hash(SEED),
        "server_seed": SEED,
        "client_seeds": client_seeds,
        "nonce": number,
        "result": hand_result(hand, refused=[]),
    }


def test_a_changed_dark_cap_shortens_the_dark_chain():
    # 50 chips behind each after the ante: 2 x 20 is within the cap, 4 x 20 is not.
    assert [a[:2] for a in played(rules=RULES_V1)["actions"][:3]] == [
        ["bob", "dark"],
        ["cem", "dark"],
        ["ann", "call"],
    ]
    assert [a[:2] for a in played(rules=CHANGED)["actions"][:2]] == [["bob", "dark"], ["cem", "call"]]


def test_a_stored_hand_names_its_rules_in_a_hand_file_of_format_2():
    record = played(rules=CHANGED)
    assert record["format"] == FORMAT == "svara-hand/2"
    assert record["rules"] == CHANGED.to_json() and record["rules"]["version"] == 99
    assert load_hand_file(record).rules == CHANGED
    assert played(rules=RULES_V1)["rules"]["version"] == 1


def test_an_old_hand_replays_and_verifies_by_its_own_rules():
    old, new = played(rules=RULES_V1), played(rules=CHANGED, number=2)
    for record in (old, new):
        assert replay(record, strict=True) == record["result"]
        assert check_hand(record) == []


def test_replaying_an_old_hand_under_changed_rules_is_refused_loudly():
    old = played(rules=RULES_V1)
    with pytest.raises(HandFileError, match=r"action 1 \(cem dark\) is refused by rules version 99: "):
        replay(old, rules=CHANGED, strict=True)
    # A file that claims other rules than its hand was played by does not verify, and says why.
    claims = {**copy.deepcopy(old), "rules": CHANGED.to_json()}
    problems = check_hand(claims)
    assert problems and problems[-1].startswith("hand 7-1 cannot be replayed: action 1 (cem dark) is refused")


def test_a_format_1_file_is_read_as_the_first_rules():
    assert EXAMPLE["format"] == "svara-hand/1"
    assert load_hand_file(EXAMPLE).rules is RULES_V1
    assert load_hand_file({k: v for k, v in EXAMPLE.items() if k != "format"}).rules is RULES_V1
    with pytest.raises(HandFileError, match="has no rules"):
        load_hand_file({**EXAMPLE, "rules": RULES_V1.to_json()})
    with pytest.raises(HandFileError, match="names its rules"):
        load_hand_file({**EXAMPLE, "format": FORMAT})
    with pytest.raises(HandFileError, match="rules: these rules are not rules version 1"):
        load_hand_file({**EXAMPLE, "format": FORMAT, "rules": {**RULES_V1.to_json(), "dark_cap": 3}})


def test_a_hand_in_play_keeps_its_rules_through_its_state():
    rng = random.Random(5)
    for rules in (RULES_V1, CHANGED):
        hand = Hand.start(
            stake=10,
            names=["a", "b", "c"],
            chips=[60, 60, 60],
            dealer=1,
            rules=rules,
            seeds={"server_seed": SEED, "client_seeds": ["", "", ""], "nonce": 1},
        )
        state = hand.to_json()
        assert ("rules" in state) == (rules is not RULES_V1)  # the first rules' state is as it was
        again = Hand.from_json(state)
        assert again.rules == rules and again.legal() == hand.legal()
        while not hand.finished:
            legal = hand.legal()
            assert legal is not None
            verb = rng.choice(legal.verbs)
            amount = legal.raise_range[0] if verb == "raise" and legal.raise_range else None
            hand.act(legal.seat, verb, amount)
            again = Hand.from_json(hand.to_json())
            assert again.to_json() == hand.to_json() and again.legal() == hand.legal()


def test_the_command_line_replays_by_the_files_rules_and_strict_refuses_a_refused_move():
    new = played(rules=CHANGED)
    code, out, _err = run_main(["replay", "-"], json.dumps(new).encode())
    assert code == 0 and json.loads(out) == new["result"]
    # HAND_FORMAT.md's example holds a refused move: listed by default, an error (exit 2) with --strict.
    code, out, _err = run_main(["replay", "-"], json.dumps(EXAMPLE).encode())
    assert code == 0 and json.loads(out)["refused"][0]["index"] == 2
    code, out, err = run_main(["replay", "--strict", "-"], json.dumps(EXAMPLE).encode())
    assert code == 2 and out == b""
    assert err.decode().startswith(
        "error: action 2 (ann raise 40) is refused by rules version 1: not your turn"
    )
