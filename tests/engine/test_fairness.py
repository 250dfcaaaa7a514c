"""The fair deck (RULES.md §6, docs/fairness.md).

The module is checked against an independent implementation written from docs/fairness.md
(``reference_deck`` below, deliberately plain: the ``hmac`` module, ``int.from_bytes``, a list
of numbers), against the worked example that the doc itself states, and against a statistical
check that is shown to reject the classic broken shuffles.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import fairness
from games.engine.cards import DECK, card_text, parse_card, parse_cards
from games.engine.fairness import (
    MAX_CLIENT_SEED_CHARS,
    hmac_message,
    new_client_seed,
    new_server_seed,
    seed_hash,
    shuffled_deck,
    verify_hand,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fairness.md"
MODULE = ROOT / "games" / "engine" / "fairness.py"

SEED = bytes(range(32)).hex()
OTHER_SEED = bytes(range(1, 33)).hex()
SEEDS = ["ann-7f3a", "bob"]


# --- an independent implementation, written from docs/fairness.md -------------------------------

U32 = 2**32


def fair_limit(n: int) -> int:
    return U32 - U32 % n


def number_stream(server_seed: str, client_seeds: Sequence[str], nonce: int, deal: int):
    """The doc's stream: HMAC-SHA-256 blocks for counter 0, 1, ..., read as big-endian uint32."""
    message = b"svara-deck/1" + nonce.to_bytes(8, "big") + deal.to_bytes(4, "big")
    message += len(client_seeds).to_bytes(4, "big")
    for seed in client_seeds:
        raw = seed.encode("utf-8")
        message += len(raw).to_bytes(4, "big") + raw
    key = bytes.fromhex(server_seed)
    counter = 0
    while True:
        block = hmac.new(key, message + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        for start in range(0, 32, 4):
            yield int.from_bytes(block[start : start + 4], "big")
        counter += 1


def uniform_pick(numbers, i: int, limit_of: Callable[[int], int] = fair_limit) -> int:
    """j uniform in [0, i] by rejection, as the doc says."""
    n = i + 1
    while True:
        w = next(numbers)
        if w < limit_of(n):
            return w % n


def reference_deck(
    server_seed: str,
    client_seeds: Sequence[str],
    nonce: int,
    deal: int = 0,
    *,
    pick: Callable[..., int] = uniform_pick,
    lowest_i: int = 1,
) -> list[int]:
    numbers = number_stream(server_seed, client_seeds, nonce, deal)
    deck = list(range(32))
    for i in range(31, lowest_i - 1, -1):
        j = pick(numbers, i)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# Deliberately broken shuffles the statistical check must reject.
def sattolo_pick(numbers, i: int) -> int:
    """j in [0, i - 1]: Sattolo's algorithm, the classic off-by-one (a card can never stay)."""
    return uniform_pick(numbers, i - 1)


def byte_modulo_pick(numbers, i: int) -> int:
    """One byte mod (i + 1): modulo bias on a small integer (256 is no multiple of most n)."""
    return (next(numbers) & 0xFF) % (i + 1)


def naive_pick(numbers, i: int) -> int:
    """j in [0, 31] at every step: the 'swap with anything' shuffle."""
    return uniform_pick(numbers, 31)


BROKEN = {
    "sattolo j in [0, i-1]": {"pick": sattolo_pick},
    "byte % (i+1)": {"pick": byte_modulo_pick},
    "swap with any card": {"pick": naive_pick},
    "loop stops at i=2": {"lowest_i": 2},
}


# --- the worked example, read from the doc ------------------------------------------------------


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def worked_example() -> dict[str, str]:
    section = doc_text().split("## Worked example", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block, "docs/fairness.md: the worked example's ```text block is missing"
    figures: dict[str, str] = {}
    for line in block.group(1).splitlines():
        if line.strip():
            name, value = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            figures[name] = value
    return figures


def example_inputs() -> tuple[str, list[str], int]:
    figures = worked_example()
    return figures["server seed"], json.loads(figures["client seeds"]), int(figures["nonce"])


def test_worked_example_in_the_doc() -> None:
    figures = worked_example()
    server_seed, client_seeds, nonce = example_inputs()
    assert seed_hash(server_seed) == figures["server seed hash"]
    assert hashlib.sha256(bytes.fromhex(server_seed)).hexdigest() == figures["server seed hash"]

    message = hmac_message(client_seeds=client_seeds, nonce=nonce, deal=0, counter=0)
    assert message.hex() == figures["message 0"]
    block = hmac.new(bytes.fromhex(server_seed), message, hashlib.sha256).digest()
    assert block.hex() == figures["block 0"]
    assert [int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4)] == [
        int(w) for w in figures["numbers 0"].split()
    ]
    assert hmac_message(client_seeds=client_seeds, nonce=nonce, deal=1).hex() == figures["message deal 1"]

    for deal in (0, 1):
        expected = parse_cards(figures[f"deck deal {deal}"].split())
        assert shuffled_deck(server_seed=server_seed, client_seeds=client_seeds, nonce=nonce, deal=deal) == (
            expected
        )
        assert reference_deck(server_seed, client_seeds, nonce, deal) == expected


def test_worked_example_step_table_in_the_doc() -> None:
    server_seed, client_seeds, nonce = example_inputs()
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (.+?) \|$", doc_text(), re.M)
    assert [int(r[0]) for r in rows] == list(range(31, 0, -1))
    numbers = number_stream(server_seed, client_seeds, nonce, 0)
    deck = list(DECK)
    for i, n, w, limit, j, swap in rows:
        i, n, w, limit, j = int(i), int(n), int(w), int(limit), int(j)
        assert (n, w, limit, j) == (i + 1, next(numbers), fair_limit(n), w % n)
        assert w < limit  # the doc says no number is rejected in the example
        if i == j:
            assert swap == f"{card_text(deck[i])} stays"
        else:
            assert swap == f"{card_text(deck[i])} ↔ {card_text(deck[j])}"
        deck[i], deck[j] = deck[j], deck[i]
    assert deck == shuffled_deck(server_seed=server_seed, client_seeds=client_seeds, nonce=nonce)


def test_the_docs_own_python_sketch_agrees() -> None:
    code = re.search(r"```python\n(.*?)```", doc_text(), re.S)
    assert code
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    sketch = namespace["deck"]
    for nonce in range(20):
        for seeds in ([], ["a"], ["x", "ü-ß"], SEEDS):
            assert sketch(SEED, seeds, nonce, nonce % 3) == shuffled_deck(
                server_seed=SEED, client_seeds=seeds, nonce=nonce, deal=nonce % 3
            )


def test_doc_states_the_initial_order_of_the_deck() -> None:
    line = re.search(r"^\s*card:\s+(.*)$", doc_text(), re.M)
    assert line
    shown = line.group(1).split()
    head, tail = shown[: shown.index("...")], shown[shown.index("...") + 1 :]
    assert parse_cards(head) == list(DECK[: len(head)])
    assert parse_cards(tail) == list(DECK[-len(tail) :])


# --- the properties -----------------------------------------------------------------------------


def deck(**changes: object) -> list[int]:
    inputs: dict[str, object] = {"server_seed": SEED, "client_seeds": SEEDS, "nonce": 41, "deal": 0}
    inputs.update(changes)
    return shuffled_deck(**inputs)  # type: ignore[arg-type]


def test_same_inputs_same_deck() -> None:
    assert deck() == deck() == deck(client_seeds=tuple(SEEDS))
    # Capital hex digits name the same 32 bytes, hence the same deck and hash.
    assert deck(server_seed=SEED.upper()) == deck()
    assert seed_hash(SEED.upper()) == seed_hash(SEED)


def test_deal_defaults_to_the_first_deal() -> None:
    assert shuffled_deck(server_seed=SEED, client_seeds=SEEDS, nonce=41) == deck(deal=0)


@pytest.mark.parametrize(
    "changes",
    [
        {"server_seed": OTHER_SEED},
        {"server_seed": SEED[:-1] + "e"},  # one bit of the key
        {"client_seeds": ["ann-7f3b", "bob"]},
        {"client_seeds": ["ann-7f3a", "bob "]},
        {"client_seeds": ["bob", "ann-7f3a"]},  # order matters
        {"client_seeds": ["ann-7f3a"]},
        {"client_seeds": ["ann-7f3a", "bob", ""]},  # an empty seed still counts
        {"client_seeds": []},
        {"client_seeds": ["ann-7f3abob"]},
        {"client_seeds": ["ann-7f3", "abob"]},  # same characters, split elsewhere
        {"nonce": 40},
        {"nonce": 42},
        {"deal": 1},
        {"deal": 2},
    ],
    ids=repr,
)
def test_each_input_changes_the_deck(changes: dict[str, object]) -> None:
    assert deck(**changes) != deck()


def test_encoding_is_unambiguous() -> None:
    def message(seeds: list[str], nonce: int = 0, deal: int = 0) -> bytes:
        return hmac_message(client_seeds=seeds, nonce=nonce, deal=deal)

    assert message(["a", "bc"]) != message(["ab", "c"])
    assert message(["a", ""]) != message(["a"]) != message(["", "a"])
    assert message([], nonce=1) != message([], deal=1)
    assert (
        message(["a", "bc"]).hex().endswith("00000002" + "00000001" + "61" + "00000002" + "6263" + "00000000")
    )


@given(
    server_seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    client_seeds=st.lists(st.text(max_size=MAX_CLIENT_SEED_CHARS), max_size=7),
    nonce=st.integers(min_value=0, max_value=2**64 - 1),
    deal=st.integers(min_value=0, max_value=2**32 - 1),
)
@settings(max_examples=300, deadline=None)
def test_agrees_with_the_independent_implementation(
    server_seed: str, client_seeds: list[str], nonce: int, deal: int
) -> None:
    got = shuffled_deck(server_seed=server_seed, client_seeds=client_seeds, nonce=nonce, deal=deal)
    assert got == reference_deck(server_seed, client_seeds, nonce, deal)
    assert sorted(got) == list(DECK)


def low_limit(n: int) -> int:
    return (2**31 // n) * n


@given(
    server_seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    nonce=st.integers(min_value=0, max_value=10**6),
)
@settings(max_examples=40, deadline=None)
def test_rejection_path_agrees(server_seed: str, nonce: int) -> None:
    """A fair shuffle rejects a number about once in 20 million shuffles, too rarely to meet by
    chance. With the limits lowered to about 2**31, about half the numbers are rejected and the
    stream runs on into blocks 4, 5, ...: module and reference must still agree."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fairness, "_DRAWS", tuple((n, low_limit(n)) for n, _ in fairness._DRAWS))
        got = shuffled_deck(server_seed=server_seed, client_seeds=["r"], nonce=nonce)
    expected = reference_deck(
        server_seed, ["r"], nonce, pick=lambda numbers, i: uniform_pick(numbers, i, low_limit)
    )
    assert got == expected
    assert sorted(got) == list(DECK)
    assert got != shuffled_deck(server_seed=server_seed, client_seeds=["r"], nonce=nonce)  # patch undone


def test_draw_limits_are_the_largest_multiples() -> None:
    assert [n for n, _ in fairness._DRAWS] == list(range(32, 1, -1))
    for n, limit in fairness._DRAWS:
        assert limit % n == 0 and limit <= U32 < limit + n
    assert dict(fairness._DRAWS)[32] == U32  # a power of two: nothing is ever rejected


def test_word_stream_is_hmac_sha256() -> None:
    """The module spells HMAC out over hashlib for speed; it must equal the hmac module's."""
    key = bytes.fromhex(OTHER_SEED)
    prefix = hmac_message(client_seeds=SEEDS, nonce=7, deal=3)[:-4]
    stream = fairness._WordStream(key=key, prefix=prefix, blocks=6)
    expected = []
    for counter in range(6):
        block = hmac.digest(key, prefix + counter.to_bytes(4, "big"), "sha256")
        expected += [int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4)]
    assert stream.words == expected


def test_first_blocks_are_hmac_sha256() -> None:
    """The shuffle's own four blocks (the last one made on the states themselves) are HMAC too."""
    key = bytes.fromhex(SEED)
    prefix = hmac_message(client_seeds=SEEDS, nonce=41, deal=1)[:-4]
    expected = b"".join(hmac.digest(key, prefix + c.to_bytes(4, "big"), "sha256") for c in range(4))
    assert fairness._first_blocks(key, prefix) == expected
    stream = fairness._WordStream(key=key, prefix=prefix, blocks=4)
    assert stream.words == list(fairness._FIRST_WORDS.unpack(expected))


# Numbers at the very top of the 32-bit range, where the rejections are; and plain ones.
high_or_plain_word = st.one_of(st.integers(0xFFFFFEF0, U32 - 1), st.integers(0, U32 - 1))


@given(words=st.lists(high_or_plain_word, min_size=32, max_size=32))
@settings(max_examples=300)
def test_quick_rejection_check_agrees_with_the_limits(words: list[int]) -> None:
    """``_rejects_none`` first looks for three 0xFF bytes in a row, then compares numbers with
    limits only if it finds them; the answer must be that of comparing every number."""
    blocks = b"".join(w.to_bytes(4, "big") for w in words)
    plain = all(w < limit for w, (_, limit) in zip(words, fairness._DRAWS, strict=False))
    _, limits, fair_limits = fairness._split_draws()
    assert fair_limits
    assert fairness._rejects_none(blocks, limits, fair_limits) == plain


def test_quick_rejection_check_sees_each_rejectable_number() -> None:
    for position, (n, limit) in enumerate(fairness._DRAWS):
        if limit == U32:
            continue  # a power of two: nothing to reject
        for w, rejected in ((limit - 1, False), (limit, True), (U32 - 1, True)):
            words = [0] * 32
            words[position] = w
            blocks = b"".join(x.to_bytes(4, "big") for x in words)
            assert fairness._rejects_none(blocks, *fairness._split_draws()[1:]) is not rejected, (n, w)


def test_result_is_a_permutation_of_all_32_cards() -> None:
    for nonce in range(200):
        result = deck(nonce=nonce, deal=nonce % 4)
        assert sorted(result) == list(DECK)
        assert len(result) == 32


def test_new_seeds_come_from_secrets() -> None:
    seeds = {new_server_seed() for _ in range(50)}
    assert len(seeds) == 50
    for seed in seeds:
        assert re.fullmatch(r"[0-9a-f]{64}", seed)
        assert len(seed_hash(seed)) == 64
    client = new_client_seed()
    assert re.fullmatch(r"[0-9a-f]{16}", client) and client != new_client_seed()
    shuffled_deck(server_seed=seeds.pop(), client_seeds=[client], nonce=0)


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_never_uses_random_and_stays_pure() -> None:
    imports = imported_modules(MODULE)
    assert not any(name == "random" or name.startswith(("random.", "numpy")) for name in imports)
    assert not any(name.startswith("django") for name in imports)
    assert "secrets" in imports
    assert imports <= {
        "__future__",
        "functools",
        "hashlib",
        "operator",
        "re",
        "secrets",
        "struct",
        "unicodedata",
        "collections.abc",
        "games.engine.cards",
    }
    assert not re.search(r"\brandom\.", MODULE.read_text(encoding="utf-8"))


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("", "64 hexadecimal digits"),
        (SEED[:-1], "63 characters"),
        (SEED + "0", "65 characters"),
        (SEED[:-1] + "g", "64 hexadecimal digits"),
        (SEED[:-2] + " 0", "64 hexadecimal digits"),
        (SEED + "\n", "65 characters"),
        ("0x" + SEED[2:], "64 hexadecimal digits"),
        (None, "got None"),
        (bytes(32), "64 hexadecimal digits"),
    ],
)
def test_bad_server_seed(seed: object, message: str) -> None:
    with pytest.raises(ValueError, match="server seed must be exactly 64 hexadecimal digits") as caught:
        shuffled_deck(server_seed=seed, client_seeds=[], nonce=0)  # type: ignore[arg-type]
    assert message in str(caught.value)
    with pytest.raises(ValueError, match="server seed"):
        seed_hash(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"nonce": -1}, "nonce (hand number) must be a whole number from 0 to"),
        ({"nonce": 2**64}, "nonce (hand number) must be a whole number from 0 to"),
        ({"nonce": 1.0}, "got 1.0"),
        ({"nonce": "3"}, "got '3'"),
        ({"nonce": True}, "got True"),
        ({"nonce": None}, "got None"),
        ({"deal": -1}, "deal index must be a whole number"),
        ({"deal": 2**32}, "deal index must be a whole number"),
        ({"client_seeds": "ann"}, "client seeds must be a list of strings"),
        ({"client_seeds": None}, "client seeds must be a list of strings"),
        ({"client_seeds": ["ok", 7]}, "client seed 2 must be a string"),
        ({"client_seeds": ["x" * 65]}, "client seed 1 is 65 characters long; at most 64"),
        ({"client_seeds": ["\ud800"]}, "client seed 1 is not valid Unicode text"),
    ],
)
def test_bad_inputs_are_refused_clearly(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        deck(**changes)
    assert message in str(caught.value)


def test_seed_length_limit_is_in_characters() -> None:
    assert len(deck(client_seeds=["é" * 64])) == 32  # 128 UTF-8 bytes, 64 characters: fine


# --- statistics ---------------------------------------------------------------------------------

SHUFFLES = 20_000
# Chi-square over the 32 cards at one position has 31 degrees of freedom: P(X > 90) ≈ 1e-7, so a
# fair shuffle fails one of the 32 positions about once in 250,000 runs (and these runs are
# deterministic anyway: fixed seed, nonces 0..19,999). Over the whole 32-by-32 position-by-card
# table (about 961 degrees of freedom, mean ≈ 961, sd ≈ 44) P(X > 1250) < 1e-7.
POSITION_LIMIT = 90.0
TABLE_LIMIT = 1250.0


def bias_found(decks: Sequence[Sequence[int]]) -> list[str]:
    """Reasons to think the decks are not uniformly shuffled; [] when they look fair."""
    expected = len(decks) / 32
    table = [[0] * 32 for _ in range(32)]
    for one in decks:
        for position, card in enumerate(one):
            table[position][card] += 1
    chi = [sum((count - expected) ** 2 / expected for count in row) for row in table]
    found = [
        f"position {position}: chi-square {value:.0f} > {POSITION_LIMIT}"
        for position, value in enumerate(chi)
        if value > POSITION_LIMIT
    ]
    if sum(chi) > TABLE_LIMIT:
        found.append(f"whole table: chi-square {sum(chi):.0f} > {TABLE_LIMIT}")
    return found


STAT_SEED = hashlib.sha256(b"svara statistics").hexdigest()


def test_shuffles_look_uniform() -> None:
    decks = [shuffled_deck(server_seed=STAT_SEED, client_seeds=["s"], nonce=n) for n in range(SHUFFLES)]
    assert bias_found(decks) == []
    # The top card in particular: each of the 32 cards within 20% of its 625 expected.
    tops = [0] * 32
    for one in decks:
        tops[one[0]] += 1
    assert all(500 < count < 750 for count in tops), tops


@pytest.mark.parametrize("variant", list(BROKEN), ids=str)
def test_the_check_rejects_broken_shuffles(variant: str) -> None:
    decks = [reference_deck(STAT_SEED, ["s"], n, **BROKEN[variant]) for n in range(SHUFFLES)]
    assert all(sorted(one) == list(DECK) for one in decks[:100])  # still permutations
    assert bias_found(decks), f"the statistical check missed the {variant} bug"


# --- verify_hand --------------------------------------------------------------------------------


def stored_hand(**changes: object) -> dict[str, object]:
    first = deck(deal=0)
    replay = deck(deal=1)
    hand: dict[str, object] = {
        "server_seed": SEED,
        "server_seed_hash": seed_hash(SEED),
        "client_seeds": SEEDS,
        "nonce": 41,
        # As HAND_FORMAT.md stores them: card text, unused cards left out.
        "decks": [[card_text(c) for c in first[:9]], [card_text(c) for c in replay[:6]]],
    }
    hand.update(changes)
    return hand


def test_a_good_hand_checks_out() -> None:
    assert verify_hand(**stored_hand()) == []
    full = [deck(deal=0), deck(deal=1), deck(deal=2)]
    assert verify_hand(**stored_hand(decks=full)) == []  # ints, whole decks, a double svara
    assert verify_hand(**stored_hand(server_seed_hash=seed_hash(SEED).upper())) == []


def test_the_docs_example_checks_out() -> None:
    figures = worked_example()
    server_seed, client_seeds, nonce = example_inputs()
    decks = [figures["deck deal 0"].split()[:12], figures["deck deal 1"].split()]
    problems = verify_hand(
        server_seed=server_seed,
        server_seed_hash=figures["server seed hash"],
        client_seeds=client_seeds,
        nonce=nonce,
        decks=decks,
    )
    assert problems == []


def test_wrong_seed_is_reported() -> None:
    problems = verify_hand(**stored_hand(server_seed=OTHER_SEED))
    assert any("SHA-256 of the revealed server seed" in p for p in problems)
    assert any(p.startswith("deck 1 (the first deal), card ") for p in problems)


def test_wrong_hash_is_reported() -> None:
    problems = verify_hand(**stored_hand(server_seed_hash=seed_hash(OTHER_SEED)))
    assert problems == [
        f"SHA-256 of the revealed server seed is {seed_hash(SEED)}, "
        f"but the hash shown during play was {seed_hash(OTHER_SEED)!r}"
    ]


def test_hash_of_the_hex_text_instead_of_the_bytes_is_wrong() -> None:
    text_hash = hashlib.sha256(SEED.encode()).hexdigest()
    assert verify_hand(**stored_hand(server_seed_hash=text_hash))


def test_wrong_deck_is_reported_at_the_first_difference() -> None:
    hand = stored_hand()
    first = list(hand["decks"][0])  # type: ignore[index]
    first[4], first[5] = first[5], first[4]
    problems = verify_hand(**stored_hand(decks=[first, hand["decks"][1]]))  # type: ignore[index]
    assert problems == [
        f"deck 1 (the first deal), card 5: the hand shows {first[4]}, the seeds give {first[5]}"
    ]


def test_wrong_replay_deck_is_reported() -> None:
    # The first deal's deck stored again as the replay's: the replay must use deal = 1.
    first = [card_text(c) for c in deck(deal=0)]
    problems = verify_hand(**stored_hand(decks=[first, first]))
    assert len(problems) == 1 and problems[0].startswith("deck 2 (svara replay 1), card 1:")


def test_wrong_nonce_or_client_seeds_are_reported() -> None:
    assert verify_hand(**stored_hand(nonce=42))
    assert verify_hand(**stored_hand(client_seeds=list(reversed(SEEDS))))


def test_prefixes_are_compared_and_checked_for_length() -> None:
    whole = [card_text(c) for c in deck(deal=0)]
    assert verify_hand(**stored_hand(decks=[whole[:6]])) == []
    assert verify_hand(**stored_hand(decks=[whole[1:10]]))  # not a prefix: shifted by one
    assert verify_hand(**stored_hand(decks=[whole[:5]])) == [
        "deck 1 (the first deal) has 5 cards; a deal uses at least 6"
    ]
    assert verify_hand(**stored_hand(decks=[[*whole, "7C"]])) == [
        "deck 1 (the first deal) has 33 cards; the deck has only 32"
    ]
    # A hand that ended before its deal dealt no deck: only the seed is checked (its replay says
    # whether it really ended there: tests/engine/test_verify.py).
    assert verify_hand(**stored_hand(decks=[])) == []
    assert verify_hand(**stored_hand(decks=[], server_seed_hash="0" * 64))[0].startswith("SHA-256")
    assert verify_hand(**stored_hand(decks="7C 8C")) == ["the hand's decks are not a list of decks"]


def test_bad_stored_values_are_reported_not_raised() -> None:
    assert verify_hand(**stored_hand(server_seed="nope"))[0].startswith("server seed must be exactly 64")
    assert "nonce (hand number)" in verify_hand(**stored_hand(nonce=-1))[0]
    assert verify_hand(**stored_hand(decks=[["7C", "XX", "8C", "9C", "10C", "JC"]]))[0].startswith(
        "deck 1 (the first deal): not a card: 'XX'"
    )
    assert verify_hand(**stored_hand(decks=[[0, 1, 2, 3, 4, 32]]))[0].startswith(
        "deck 1 (the first deal): not a card: 32"
    )
    assert verify_hand(**stored_hand(decks=["7C 8C"])) == ["deck 1 (the first deal) is not a list of cards"]
    assert verify_hand(**stored_hand(server_seed_hash=None))[0].startswith("SHA-256 of the revealed")


def test_stored_card_text_uses_the_card_parser() -> None:
    whole = deck(deal=0)
    symbols = [card_text(c).replace("10", "T") for c in whole[:9]]
    assert [parse_card(s) for s in symbols] == whole[:9]
    assert verify_hand(**stored_hand(decks=[symbols])) == []
    lower = [s.lower() for s in symbols]
    assert verify_hand(**stored_hand(decks=[lower]))[0].startswith("deck 1 (the first deal): not a card")
