"""The hash chain of a table's stored hands (docs/fairness.md, "The hash chain").

Each settled hand's stored record holds ``prev_hash``: the link hash of the table's previous
settled hand, or ``GENESIS`` for the first hand stored with the chain. A record's link hash is
the SHA-256 of its canonical JSON bytes, ``prev_hash`` included, so changing, removing or
inserting a hand breaks the link of the hand after it (and moves the table's chain head).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

GENESIS = "0" * 64
PREV_KEY = "prev_hash"


def canonical_bytes(record: object) -> bytes:
    """The bytes hashed: JSON with keys sorted by code point, no spaces, UTF-8, no escapes but
    those JSON requires (quote, backslash, control characters)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def link_hash(record: object) -> str:
    """Lowercase hex SHA-256 of the record's canonical bytes."""
    return hashlib.sha256(canonical_bytes(record)).hexdigest()


def _name(record: object, index: int) -> str:
    hand_id = record.get("hand_id") if isinstance(record, dict) else None
    return f"hand {hand_id}" if isinstance(hand_id, str) else f"hand {index + 1} of the file"


def check_chain(
    records: Sequence[object], *, first_prev: str | None = None, head: str | None = None
) -> list[str]:
    """Problems with the links between consecutive ``records`` (oldest first); [] when they hold.

    ``first_prev``: the hash the first record must link to, when known (the hand before it, or
    GENESIS). ``head``: the chain head published for the last record, when known.
    """
    problems: list[str] = []
    previous: str | None = first_prev
    for index, record in enumerate(records):
        name = _name(record, index)
        prev = record.get(PREV_KEY) if isinstance(record, dict) else None
        if not isinstance(prev, str):
            problems.append(f"{name} has no {PREV_KEY}: it is not a link of the chain")
        elif previous is not None and prev != previous:
            before = "the start of the chain" if previous == GENESIS else "the hand before it"
            problems.append(
                f"{name} links to {prev}, but {before} hashes to {previous}: "
                "a hand was changed, removed or inserted"
            )
        try:
            previous = link_hash(record)
        except (TypeError, ValueError) as exc:
            problems.append(f"{name} cannot be hashed: {exc}")
            previous = None
    if head is not None and records and previous is not None and previous != head.strip().lower():
        problems.append(f"the last hand hashes to {previous}, but the chain head shown is {head}")
    return problems


def record_with_link(record: dict[str, Any], *, prev_hash: str) -> tuple[dict[str, Any], str]:
    """The record with its ``prev_hash`` set, and its own link hash."""
    linked = {**record, PREV_KEY: prev_hash}
    return linked, link_hash(linked)
