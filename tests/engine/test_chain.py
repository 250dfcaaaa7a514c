"""The hash chain of stored hands: the bytes hashed, and that a changed, removed or inserted hand
is found (docs/fairness.md, "The hash chain")."""

from __future__ import annotations

import copy
import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.chain import GENESIS, canonical_bytes, check_chain, link_hash, record_with_link
from tests.engine.seriesfiles import chained, played_record


def test_the_canonical_bytes_are_the_documented_ones():
    record = {"nonce": 2, "prev_hash": GENESIS, "a": "é", "q": 'say "hi"\n'}
    expected = '{"a":"é","nonce":2,"prev_hash":"' + "0" * 64 + '","q":"say \\"hi\\"\\n"}'
    assert canonical_bytes(record) == expected.encode("utf-8")
    assert "é".encode() == b"\xc3\xa9" and b"\xc3\xa9" in canonical_bytes(record)
    assert link_hash(record) == hashlib.sha256(expected.encode("utf-8")).hexdigest()
    # Key order in the object does not matter; the values do.
    assert link_hash(dict(reversed(list(record.items())))) == link_hash(record)


def test_a_linked_record_carries_the_previous_hash_and_its_own_covers_it():
    record, own = record_with_link({"nonce": 1}, prev_hash=GENESIS)
    assert record["prev_hash"] == GENESIS and own == link_hash(record)
    assert record_with_link({"nonce": 1}, prev_hash="ab" * 32)[1] != own


RECORDS, HEAD = chained([played_record(number=n) for n in range(1, 6)])


def test_an_untouched_chain_checks_out_to_its_head():
    assert check_chain(RECORDS, first_prev=GENESIS, head=HEAD) == []


def test_a_changed_hand_is_found_by_the_next_link_or_by_the_head():
    changed = copy.deepcopy(RECORDS)
    changed[1]["result"]["pot"] += 10
    problems = check_chain(changed, first_prev=GENESIS, head=HEAD)
    assert len(problems) == 1 and "hand 7-3 links to" in problems[0]
    last = copy.deepcopy(RECORDS)
    last[-1]["actions"] = last[-1]["actions"][:-1]
    problems = check_chain(last, head=HEAD)
    assert problems and "chain head shown is" in problems[-1]


def test_a_removed_or_inserted_hand_is_found():
    removed = RECORDS[:2] + RECORDS[3:]
    assert any("hand 7-4 links to" in p for p in check_chain(removed, first_prev=GENESIS))
    extra, _ = chained([played_record(number=99)], first_prev=link_hash(RECORDS[1]))
    inserted = RECORDS[:2] + extra + RECORDS[2:]
    assert any("hand 7-3 links to" in p for p in check_chain(inserted, first_prev=GENESIS))


def test_a_record_without_a_link_or_that_is_no_json_is_named():
    assert "has no prev_hash" in check_chain([{"nonce": 1}])[0]
    assert "cannot be hashed" in check_chain([{"prev_hash": GENESIS, "x": float("nan")}])[0]


@settings(max_examples=60, deadline=None)
@given(
    index=st.integers(0, len(RECORDS) - 1),
    key=st.sampled_from(["decks", "actions", "result", "client_seeds"]),
)
def test_any_change_to_any_hand_breaks_the_chain(index, key):
    changed = copy.deepcopy(RECORDS)
    changed[index][key] = [changed[index][key], "tampered"]
    assert check_chain(changed, first_prev=GENESIS, head=HEAD) != []
