"""Stored hands and series files as the site writes them, built with the engine alone."""

from __future__ import annotations

import random
from typing import Any

from games.engine.chain import GENESIS, record_with_link
from games.engine.fairness import seed_hash
from games.engine.hand import Hand
from games.engine.handfile import hand_file_of, hand_result
from games.engine.verify import SERIES_FORMAT

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
NAMES = ["ann", "bob", "cat"]


def played_record(*, number: int, seed: str = SEED, rng: random.Random | None = None) -> dict[str, Any]:
    """Hand ``number`` at table 7, dealt from ``seed`` and played with random legal moves."""
    rng = rng or random.Random(number)
    client_seeds = [f"c{number}-{name}" for name in NAMES]
    hand = Hand.start(
        stake=10,
        names=NAMES,
        chips=[500, 500, 500],
        dealer=number % 3,
        dark_play=True,
        seeds={"server_seed": seed, "client_seeds": client_seeds, "nonce": number},
    )
    while not hand.finished:
        legal = hand.legal()
        assert legal is not None
        verb = rng.choice(legal.verbs)
        amount = None
        if verb == "raise":
            low, high = legal.raise_range
            amount = rng.randint(low, min(high, low + 30))
        elif verb == "dark":
            amount = legal.dark_amount
        hand.act(legal.seat, verb, amount)
    return {
        **hand_file_of(hand),
        "hand_id": f"7-{number}",
        "table": 7,
        "started_at": "2026-12-04T18:00:00+00:00",
        "server_seed_hash": seed_hash(seed),
        "server_seed": seed,
        "client_seeds": client_seeds,
        "nonce": number,
        "series": 1,
        "result": hand_result(hand, refused=[]),
    }


def chained(records: list[dict[str, Any]], *, first_prev: str = GENESIS) -> tuple[list[dict[str, Any]], str]:
    """The records linked into a chain as the site settles them; and the chain head."""
    linked, prev = [], first_prev
    for record in records:
        record, prev = record_with_link(record, prev_hash=prev)
        linked.append(record)
    return linked, prev


def series_file(count: int = 4, *, seed: str = SEED) -> dict[str, Any]:
    hands, head = chained([played_record(number=n, seed=seed) for n in range(1, count + 1)])
    return {
        "format": SERIES_FORMAT,
        "table": 7,
        "series": 1,
        "server_seed_hash": seed_hash(seed),
        "server_seed": seed,
        "started_at": "2026-12-04T18:00:00+00:00",
        "revealed_at": "2026-12-04T19:00:00+00:00",
        "end_reason": "left",
        "cancelled": [],
        "first_prev": GENESIS,
        "last_hash": head,
        "hands": hands,
    }
