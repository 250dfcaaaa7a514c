"""The engine's fast paths agree with the straightforward ones (bench/engine.py times them).

``Hand.act`` accepts the usual moves in a few steps of its own and asks ``refusal_code`` only for
the rest; the cap is remembered between the moves that can change it; ``legal()`` builds its
NamedTuple without the generated constructor. Each is checked here against the plain
computation, over random hands and random (mostly illegal) moves, and a digest of everything a
caller can observe is pinned to the value the engine gave before these fast paths existed.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.engine.fairness import shuffled_deck
from games.engine.hand import BETTING, DARK, JOIN, Hand, IllegalAction, Legal

VERBS = ["dark", "decline", "fold", "call", "raise", "join", "skip", "pass", "timeout", "fly"]


class Fold(str):
    """A str subclass: not a plain str, so ``act`` must leave it to ``refusal_code``."""


def random_hand(rng: random.Random, number: int) -> Hand | None:
    n = rng.randint(2, 6)
    stake = rng.choice([1, 10, 50])
    chips = [
        rng.choice([0, stake, 2 * stake, 3 * stake, 5 * stake, 20 * stake, 100 * stake]) for _ in range(n)
    ]
    if sum(c >= 2 * stake for c in chips) < 2:
        chips[0] = chips[1] = 50 * stake
    kwargs: dict[str, Any] = {
        "stake": stake,
        "names": [f"n{i}" for i in range(n)],
        "chips": chips,
        "dealer": rng.randrange(n),
        "dark_play": rng.random() < 0.7,
    }
    mode = rng.random()
    if mode < 0.6:
        seeds = [f"c{i}" for i in range(rng.randint(0, 3))]
        kwargs["seeds"] = {"server_seed": rng.randbytes(32).hex(), "client_seeds": seeds, "nonce": number}
    elif mode < 0.8:
        kwargs["decks"] = [rng.sample(range(32), 32) for _ in range(rng.randint(1, 3))]
    else:  # the same deck twice, then seeds: ties and svara replays, often
        kwargs["decks"] = [list(range(32))] * 2
        kwargs["seeds"] = {"server_seed": "ab" * 32, "client_seeds": ["x"], "nonce": number}
    try:
        return Hand.start(**kwargs)
    except ValueError:
        return None


def odd_moves(rng: random.Random, hand: Hand) -> Iterator[tuple[object, object, object]]:
    """Moves a careless or hostile caller might send, legal ones among them."""
    n = len(hand.names)
    legal = hand.legal()
    seat = legal.seat if legal else 0
    amounts: list[object] = [None, None, 0, 10, 2.0, True, "40", -10, 10**6]
    if hand.to_act is not None and any(hand.in_hand):
        amounts += [hand.target + hand.stake, hand.target + hand.stake - 1, hand.cap(), hand.cap() + 1]
    for _ in range(rng.randint(1, 5)):
        yield (
            rng.choice([seat, seat, rng.randrange(-1, n + 1), True, False]),
            rng.choice([*VERBS, Fold("fold"), "call"]),
            rng.choice(amounts),
        )


def snapshot(hand: Hand) -> str:
    return json.dumps(hand.to_json(), sort_keys=True)


def play(rng: random.Random, hand: Hand, record: Callable[[object], None]) -> None:
    for _ in range(200):
        legal = hand.legal()
        record(["legal", None if legal is None else list(legal)])
        for seat, verb, amount in odd_moves(rng, hand):
            before = snapshot(hand)
            found = hand.refusal_code(seat, verb, amount)  # type: ignore[arg-type]
            record(["try", repr(seat), str(verb), repr(amount), found])
            if found is None:
                hand.act(seat, verb, amount)  # type: ignore[arg-type]
                record(["done", hand.to_json()])
                continue
            with pytest.raises(IllegalAction) as refused:
                hand.act(seat, verb, amount)  # type: ignore[arg-type]
            assert (refused.value.code, refused.value.params) == found
            assert str(refused.value) == hand.refusal(seat, verb, amount)  # type: ignore[arg-type]
            assert snapshot(hand) == before
        if rng.random() < 0.3:
            hand = Hand.from_json(json.loads(snapshot(hand)))
        legal = hand.legal()
        if legal is None:
            break
        verb = rng.choice(legal.verbs)
        if verb == "raise":
            assert legal.raise_range is not None
            hand.act(legal.seat, verb, rng.randint(*legal.raise_range))
        else:
            hand.act(legal.seat, rng.choice([verb, verb, "timeout"]))
        record(["state", hand.to_json()])
    record(["final", hand.to_json()])


def trace_digest(hands: int) -> str:
    """SHA-256 of every state, legal() and refusal of ``hands`` random hands, and of some decks."""
    rng = random.Random(2)
    digest = hashlib.sha256()

    def record(item: object) -> None:
        digest.update(json.dumps(item, sort_keys=True, default=repr).encode() + b"\n")

    for number in range(hands):
        hand = random_hand(rng, number)
        if hand is not None:
            record(hand.to_json())
            play(rng, hand, record)
    for i in range(100):
        seed = hashlib.sha256(b"%d" % i).hexdigest()
        record(
            shuffled_deck(server_seed=seed, client_seeds=["a", "é", ""][: i % 4], nonce=i * 7919, deal=i % 3)
        )
    return digest.hexdigest()


# Computed with the engine as it was before the fast paths (commit 09c3b49), by this same code.
DIGEST_BEFORE_FAST_PATHS = "0e0fc04583c206d3b2174589895d9778c5051108997b201f1a1326b33668bd26"


def test_everything_observable_is_as_before_the_fast_paths() -> None:
    assert trace_digest(400) == DIGEST_BEFORE_FAST_PATHS


def test_act_agrees_with_refusal_code_and_the_cap_with_its_memo() -> None:
    rng = random.Random(7)
    for number in range(300):
        hand = random_hand(rng, number)
        if hand is None:
            continue

        def check(_: object, hand: Hand = hand) -> None:
            if any(hand.in_hand):
                assert hand._cap() == hand.cap()

        play(rng, hand, check)


def plain_legal(hand: Hand) -> Legal:
    """``legal()`` from RULES.md §4 directly, through the NamedTuple's own constructor."""
    seat = hand.to_act
    assert seat is not None
    if hand.phase == DARK:
        return Legal(seat=seat, verbs=("dark", "decline"), dark_amount=hand.stake * 2**hand.dark_bets)
    if hand.phase == JOIN:
        return Legal(seat=seat, verbs=("join", "skip"), join_fee=hand.join_fee)
    low, cap = hand.target + hand.stake, hand.cap()
    verbs = ("fold",) + (("call",) if hand.target > 0 else ()) + (("raise",) if low <= cap else ())
    return Legal(
        seat=seat,
        verbs=verbs,
        raise_range=(low, cap) if low <= cap else None,
        to_call=max(hand.target - hand.bets[seat], 0),
    )


def test_legal_is_the_plain_named_tuple() -> None:
    rng = random.Random(11)
    seen = set()
    for number in range(300):
        hand = random_hand(rng, number)
        while hand is not None and (legal := hand.legal()) is not None:
            plain = plain_legal(hand)
            assert type(legal) is Legal
            assert legal == plain and legal._asdict() == plain._asdict()
            seen.add(hand.phase)
            verb = rng.choice(legal.verbs)
            amount = rng.randint(*legal.raise_range) if verb == "raise" and legal.raise_range else None
            hand.act(legal.seat, verb, amount)
    assert seen == {DARK, BETTING, JOIN}
