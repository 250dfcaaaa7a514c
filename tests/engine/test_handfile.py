"""The hand file and command line of HAND_FORMAT.md, through the real `python -m games.engine`."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.handfile import HandFileError, hand_file_of, load_hand_file, replay, start_hand

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = {
    "format": "svara-hand/1",
    "stake": 10,
    "dark_play": True,
    "players": [{"name": "ann", "chips": 500}, {"name": "bob", "chips": 500}, {"name": "cem", "chips": 300}],
    "dealer": "ann",
    "decks": [["7C", "AH", "KD", "8S", "9S", "QC", "10H", "JD", "7D"]],
    "actions": [
        ["bob", "dark"],
        ["cem", "decline"],
        ["ann", "raise", 40],
        ["cem", "fold"],
        ["ann", "raise", 40],
        ["bob", "call"],
    ],
}

EXAMPLE_RESULT = {
    "finished": True,
    "winner": "bob",
    "pot": 110,
    "chips": {"ann": 450, "bob": 560, "cem": 290},
    "points": {"bob": 21, "ann": 17},
    "svaras": 0,
    "refused": [{"index": 2, "reason": "not your turn: it is cem's"}],
    "to_act": None,
}


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_the_documented_example_gives_the_documented_result():
    assert replay(EXAMPLE) == EXAMPLE_RESULT


def test_cli_replay_from_file_and_from_stdin(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(EXAMPLE))
    from_file = run_cli("replay", str(path))
    assert from_file.returncode == 0, from_file.stderr
    assert json.loads(from_file.stdout) == EXAMPLE_RESULT
    from_stdin = run_cli("replay", "-", stdin=json.dumps(EXAMPLE))
    assert from_stdin.returncode == 0
    assert json.loads(from_stdin.stdout) == EXAMPLE_RESULT


def test_cli_score():
    done = run_cli("score", "7C", "8C", "8D")
    assert (done.returncode, done.stdout) == (0, "27\n")
    assert run_cli("score", "7♣", "T♥", "J♦").stdout == "21\n"
    bad = run_cli("score", "7C", "8C", "8X")
    assert bad.returncode == 2 and "not a card" in bad.stderr


def test_unfinished_hand_names_who_acts_and_what_is_legal():
    data = copy.deepcopy(EXAMPLE)
    data["actions"] = [["bob", "dark"], ["cem", "decline"]]
    result = replay(data)
    assert result["finished"] is False and result["winner"] is None
    assert result["to_act"] == "cem"
    assert result["legal"] == {"verbs": ["fold", "call", "raise"], "raise": [30, 290]}
    assert result["chips"] == {"ann": 490, "bob": 480, "cem": 290}
    assert result["pot"] == 40 and result["points"] == {}


def test_join_window_shows_the_tied_showdown():
    data = {
        "stake": 10,
        "dark_play": False,
        "players": [
            {"name": "ann", "chips": 500},
            {"name": "bob", "chips": 500},
            {"name": "cem", "chips": 500},
        ],
        "dealer": "ann",
        # bob 10H JH 8C = 20, cem 10S JS 8D = 20, ann 9C 9D 8H = 9
        "decks": [["10H", "10S", "9C", "JH", "JS", "9D", "8C", "8D", "8H"]],
        "actions": [["bob", "raise", 20], ["cem", "call"], ["ann", "fold"]],
    }
    result = replay(data)
    assert result["to_act"] == "ann"
    assert result["legal"] == {"verbs": ["join", "skip"]}
    assert result["points"] == {"bob": 20, "cem": 20}
    assert result["svaras"] == 0 and result["pot"] == 70
    # Join, but the file holds no deck for the replay: not a hand file (HAND_FORMAT.md has no
    # state for a hand waiting on a deck), exit 2 with one line.
    data["actions"].append(["ann", "join"])
    with pytest.raises(HandFileError, match="action 3: no deck for svara replay 1"):
        replay(data)
    done = run_cli("replay", "-", stdin=json.dumps(data))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: action 3: no deck for svara replay 1: decks has 1\n"
    # With the replay's deck the same file plays on.
    data["decks"].append(["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D"])
    assert replay(data)["svaras"] == 1


def test_amounts_must_be_json_integers_and_extra_amounts_are_refused():
    data = copy.deepcopy(EXAMPLE)
    data["actions"] = [
        ["bob", "dark", 10.0],
        ["bob", "dark", "10"],
        ["bob", "decline", 5],
        ["bob", "dark", 10],
        ["cem", "decline"],
        ["cem", "raise", 30.0],
        ["cem", "call", 20],
        ["cem", "pass"],
        ["ann", "raise", 40],
        ["bob", "call"],
        ["bob", "call"],
    ]
    result = replay(data)
    assert result == {
        **EXAMPLE_RESULT,
        "refused": [
            {"index": 0, "reason": "an amount must be a whole number of chips"},
            {"index": 1, "reason": "an amount must be a whole number of chips"},
            {"index": 2, "reason": "decline takes no amount"},
            {"index": 5, "reason": "a raise must be a whole number of chips"},
            {"index": 6, "reason": "call takes no amount"},
            {"index": 10, "reason": "the hand is over"},
        ],
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(stake=0), "stake"),
        (lambda d: d.update(stake="10"), "stake"),
        (lambda d: d["decks"][0].__setitem__(0, "7X"), "not a card"),
        (lambda d: d["decks"][0].__setitem__(1, "7C"), "duplicate card"),
        (lambda d: d["decks"].__setitem__(0, d["decks"][0][:8]), "at least 9 cards"),
        (lambda d: d["actions"].append(["dan", "fold"]), "unknown player"),
        (lambda d: d.update(dealer="dan"), "unknown player"),
        (lambda d: [d["players"][1].update(chips=5), d["players"][2].update(chips=19)], "fewer than two"),
        (lambda d: d["players"][1].update(name="ann"), "same name"),
        (lambda d: d.update(decks=[]), "action 1: no deck for the deal: decks is empty"),
        (lambda d: d.update(decks=None), "decks must be a list of decks"),
        (lambda d: d["actions"].append("bob fold"), "action 6"),
        (lambda d: d.update(format="svara-hand/9"), "unknown format"),
        # RULES.md: 2 to 6 seats, cards in capitals (the symbols and T are accepted: see below).
        (lambda d: d["players"].extend({"name": f"p{i}", "chips": 500} for i in range(4)), "2 to 6 players"),
        (lambda d: d["decks"][0].__setitem__(0, "7c"), "not a card: '7c'"),
        (lambda d: d["decks"][0].__setitem__(2, "kd"), "not a card: 'kd'"),
    ],
)
def test_invalid_files_exit_2_with_one_line(change, message, tmp_path):
    data = copy.deepcopy(EXAMPLE)
    data["players"][2]["chips"] = 300
    change(data)
    with pytest.raises(HandFileError, match=message):
        replay(data)
    done = run_cli("replay", "-", stdin=json.dumps(data))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


def test_bad_json_and_missing_file_exit_2():
    done = run_cli("replay", "-", stdin="{not json")
    assert done.returncode == 2 and "not JSON" in done.stderr
    missing = run_cli("replay", "/nonexistent/hand.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_a_played_hand_written_as_a_file_replays_to_the_same_result():
    hand = start_hand(load_hand_file(EXAMPLE))
    for seat, verb, *amount in load_hand_file(EXAMPLE).actions:
        if hand.refusal(seat, verb, amount[0] if amount else None) is None:
            hand.act(seat, verb, amount[0] if amount else None)
    written = hand_file_of(hand)
    assert replay(written) == {**EXAMPLE_RESULT, "refused": []}


def test_cli_deck_prints_the_fair_deck_and_refuses_a_bad_seed():
    from games.engine.cards import card_text
    from games.engine.fairness import shuffled_deck

    seed = "0f" * 32
    done = run_cli(
        "deck", "--server-seed", seed, "--client-seed", "ann", "--client-seed", "bob", "--nonce", "7"
    )
    assert done.returncode == 0, done.stderr
    expected = shuffled_deck(server_seed=seed, client_seeds=["ann", "bob"], nonce=7)
    assert done.stdout.split() == [card_text(c) for c in expected]
    assert len(set(done.stdout.split())) == 32
    bad = run_cli("deck", "--server-seed", "zz", "--nonce", "1")
    assert bad.returncode == 2 and "64 hexadecimal digits" in bad.stderr


def test_six_players_and_the_other_card_notations_are_accepted():
    data = copy.deepcopy(EXAMPLE)
    data["players"].extend({"name": f"p{i}", "chips": 500} for i in range(3))
    data["decks"] = [("7♣ TH KD 8♠ 9S QC 10♦ JD 7D " + "AH AS AD 8H 8D 8C 9H 9D 9C").split()]
    data["actions"] = []
    assert replay(data)["to_act"] == "bob"


def test_a_file_that_is_not_utf8_exits_2_with_one_line(tmp_path):
    path = tmp_path / "hand.json"
    path.write_bytes(b'{"stake": 10, "players": "\xff\xfe"}')
    for done in (
        run_cli_bytes("replay", str(path), stdin=b""),
        run_cli_bytes("replay", "-", stdin=path.read_bytes()),
    ):
        assert (done.returncode, done.stdout) == (2, b"")
        assert done.stderr == b"error: not UTF-8 text: byte 26 is 0xff\n"


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        # Valid JSON, nested just below the decoder's limit, where a card is expected.
        json.dumps({**EXAMPLE, "decks": [[json.loads("[" * 900 + "]" * 900)] + EXAMPLE["decks"][0]]}),
    ],
)
def test_deep_nesting_exits_2_with_one_line(text):
    done = run_cli("replay", "-", stdin=text)
    assert (done.returncode, done.stdout) == (2, "")
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr


def test_a_number_longer_than_python_reads_exits_2():
    done = run_cli("replay", "-", stdin='{"stake": ' + "9" * 5000 + "}")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("error: not JSON that can be read") and len(done.stderr.splitlines()) == 1


def test_a_name_with_a_lone_surrogate_is_written_as_valid_json():
    data = copy.deepcopy(EXAMPLE)
    data["players"][0]["name"] = data["dealer"] = "ann\ud800"
    data["actions"] = []
    done = run_cli_bytes("replay", "-", stdin=json.dumps(data).encode())
    assert done.returncode == 0, done.stderr
    assert "ann\ud800" in json.loads(done.stdout)["chips"]


@pytest.mark.parametrize(
    "seed_args",
    [
        ["--client-seed=-x", "--client-seed", "--", "--client-seed="],
        ["--client-seed", "-x", "--", "--", ""],
        ["--", "-x", "--", ""],
    ],
)
def test_deck_takes_any_client_seed_including_ones_that_look_like_options(seed_args):
    from games.engine.cards import card_text
    from games.engine.fairness import shuffled_deck

    seed = "0f" * 32
    done = run_cli("deck", "--server-seed", seed, "--nonce", "7", *seed_args)
    assert done.returncode == 0, done.stderr
    expected = shuffled_deck(server_seed=seed, client_seeds=["-x", "--", ""], nonce=7)
    assert done.stdout.split() == [card_text(c) for c in expected]
    # The order of the seeds is the order given, whichever form each takes.
    other = shuffled_deck(server_seed=seed, client_seeds=["--", "-x", ""], nonce=7)
    assert other != expected


def test_usage_mistakes_exit_2_with_one_line():
    for args in (["deck", "--nonce", "x"], ["deck", "--client-seed"], ["frobnicate"], [], ["replay"]):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stdout == "", args
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: "), args


def run_cli_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=60
    )


def test_pots_won_is_the_whole_pot_or_each_share_of_a_svara_called_off():
    from games.engine.hand import Hand
    from games.engine.handfile import pots_won

    # ann and bob tie on 30; cem calls and loses the showdown, dan folds; cem joins the svara (fee
    # 43 of the 85) and, before dan answers, ann and bob leave: called off, cem's fee goes back,
    # the 85 split 43 / 42 from the dealer's left. The fee back is not a pot cem won.
    deck = parse_deck("10C QC 8D 8C 10D QD 9H 9C 10H QH 7S JS")
    names = ["ann", "bob", "cem", "dan"]
    hand = Hand.start(stake=10, names=names, chips=[500] * 4, dealer=3, dark_play=False, decks=[deck])
    hand.act(0, "raise", 15)
    hand.act(1, "call")
    hand.act(2, "call")
    hand.act(3, "fold")
    hand.act(2, "join")
    assert hand.pot == 85 + 43 and hand.to_act == 3 and pots_won(hand) == {}  # not over yet
    hand.act(0, "leave")
    before = list(hand.chips)
    hand.act(1, "leave")
    assert hand.finished and hand.winner is None
    paid = pots_won(hand)
    assert paid == {0: 43, 1: 42} and sum(paid.values()) == hand.pot == 85
    assert {s: hand.chips[s] - before[s] for s in paid} == paid  # what the engine handed out
    assert hand.chips[2] - before[2] == 43  # the fee back
    # A hand with a winner: the whole pot.
    won = Hand.start(
        stake=10, names=["ann", "bob"], chips=[500, 500], dealer=1, dark_play=False, decks=[deck[:6]]
    )
    won.act(0, "fold")
    assert pots_won(won) == {1: 20}


def parse_deck(text: str) -> list[int]:
    from games.engine.cards import parse_cards

    return parse_cards(text.split())
