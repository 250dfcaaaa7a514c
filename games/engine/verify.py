"""Checking stored hands and whole seed series, as downloaded from the site (docs/fairness.md).

A stored hand is the hand file of HAND_FORMAT.md with its seeds, result and chain link; a series
file (``svara-series/1``) is a revealed seed series with its hands in order. Each check returns
the problems it found, one sentence each, naming the hand and what differs; [] means it holds.
Nothing here raises for bad input.
"""

from __future__ import annotations

from typing import Any

from games.engine.chain import check_chain
from games.engine.fairness import seed_hash, verify_hand
from games.engine.handfile import HandFileError, replay

SERIES_FORMAT = "svara-series/1"


def hand_name(record: object) -> str:
    hand_id = record.get("hand_id") if isinstance(record, dict) else None
    return f"hand {hand_id}" if isinstance(hand_id, str) else "the hand"


def _result_differences(stored: object, replayed: dict[str, Any]) -> list[str]:
    if not isinstance(stored, dict):
        return ["has no stored result to compare with its replay"]
    keys = sorted(set(stored) | set(replayed))
    return [
        f"its replay gives {key} = {replayed.get(key)!r}, the stored result says {stored.get(key)!r}"
        for key in keys
        if stored.get(key) != replayed.get(key)
    ]


def check_hand(
    record: object, *, server_seed: str | None = None, server_seed_hash: str | None = None
) -> list[str]:
    """One stored hand: its seed against its hash, every deck against the seeds, and its replay
    against its stored result. ``server_seed`` and ``server_seed_hash``: its series', when known."""
    name = hand_name(record)
    if not isinstance(record, dict):
        return [f"{name} is not a JSON object"]
    problems: list[str] = []
    seed = record.get("server_seed")
    hash_ = record.get("server_seed_hash")
    if not seed:
        return [f"{name} holds no server seed: its series is not revealed yet"]
    if server_seed is not None and seed != server_seed:
        problems.append(f"{name} shows server seed {seed!r}, the series' is {server_seed}")
    if server_seed_hash is not None and hash_ != server_seed_hash:
        problems.append(f"{name} shows hash {hash_!r}, the series' is {server_seed_hash}")
    found = verify_hand(
        # Values as the file has them: verify_hand reports a bad one itself.
        server_seed=seed,
        server_seed_hash=hash_,  # type: ignore[arg-type]
        client_seeds=record.get("client_seeds"),  # type: ignore[arg-type]
        nonce=record.get("nonce"),  # type: ignore[arg-type]
        decks=record.get("decks"),  # type: ignore[arg-type]
    )
    problems += [f"{name}: {problem}" for problem in found]
    try:
        replayed = replay(record, strict=True)  # a stored hand holds only accepted moves
    except HandFileError as exc:
        problems.append(f"{name} cannot be replayed: {exc}")
    except RecursionError:
        problems.append(f"{name} cannot be replayed: a value is nested too deep")
    else:
        problems += [f"{name}: {d}" for d in _result_differences(record.get("result"), replayed)]
    return problems


def check_series(data: object, *, head: str | None = None) -> list[str]:
    """A series file: the seed against the hash, every hand (with the series' seed), the hands'
    numbers in order, and the chain from its first hand to its last (and ``head``, if given)."""
    if not isinstance(data, dict):
        return ["a series file is a JSON object"]
    if data.get("format") != SERIES_FORMAT:
        return [f"unknown format {data.get('format')!r}: expected {SERIES_FORMAT!r}"]
    seed, hash_ = data.get("server_seed"), data.get("server_seed_hash")
    problems: list[str] = []
    try:
        actual = seed_hash(seed)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        return [f"the series' server seed: {exc}"]
    if actual != hash_:
        problems.append(f"SHA-256 of the series' server seed is {actual}, but the hash shown was {hash_!r}")
    hands = data.get("hands")
    if not isinstance(hands, list):
        return [*problems, "the series file has no list of hands"]
    numbers = [h.get("nonce") if isinstance(h, dict) else None for h in hands]
    if any(not isinstance(n, int) for n in numbers) or numbers != sorted(set(numbers)):  # type: ignore[type-var]
        problems.append(f"the hands are not in order of their numbers: {numbers}")
    for record in hands:
        problems += check_hand(record, server_seed=seed, server_seed_hash=hash_)
    first_prev = data.get("first_prev")
    problems += check_chain(
        hands,
        first_prev=first_prev if isinstance(first_prev, str) else None,
        head=head if head is not None else _str_or_none(data.get("last_hash")),
    )
    return problems


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def check_file(data: object, *, head: str | None = None) -> tuple[str, list[str]]:
    """What a downloaded file is ("series 3 at table 7", "hand 7-12") and its problems."""
    if isinstance(data, dict) and data.get("format") == SERIES_FORMAT:
        what = f"series {data.get('series')} at table {data.get('table')}"
        return what, check_series(data, head=head)
    return hand_name(data), check_hand(data) + (check_chain([data], head=head) if head else [])
