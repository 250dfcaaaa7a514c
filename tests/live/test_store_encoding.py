"""The store's writer (``_encode``: orjson, checked by reading back) against ``json.dumps``.

Differential: for any document, the fast writer must refuse exactly what ``json.dumps(...,
allow_nan=False)`` refuses and what the store's reader (orjson) would read back differently
from ``json.loads``, and otherwise store the same JSON value and hand back what it reads as.
"""

from __future__ import annotations

import json
import math

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.live.store import _encode

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # past 64 bits: orjson refuses, json writes
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
keys = st.text(max_size=6) | st.integers(min_value=-5, max_value=5)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(keys, inner, max_size=4)
    ),
    max_leaves=25,
)
docs = st.dictionaries(st.text(max_size=6), values, max_size=6)


def _has_non_finite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_non_finite(v) for v in value)
    return False


@settings(max_examples=400, deadline=None)
@given(doc=docs)
def test_the_fast_writer_agrees_with_json_dumps(doc: dict) -> None:
    try:
        expected = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    except ValueError:
        assert _has_non_finite(doc)
        with pytest.raises(ValueError):
            _encode(doc)  # NaN or an infinity: refused, never written as null
        return
    if orjson.loads(expected) != json.loads(expected):  # an integer past 64 bits reads as a float
        with pytest.raises(ValueError):
            _encode(doc)
        return
    text, back = _encode(doc)
    assert json.loads(text) == json.loads(expected)
    assert back == json.loads(expected)


def test_a_plain_table_document_takes_the_fast_way_and_reads_back_equal() -> None:
    doc = {"seats": [None, {"name": "Ана", "chips": 500}], "timer": {"at": 1.5e9 + 0.25}, "log": []}
    text, back = _encode(doc)
    assert back == doc and back is not doc
    assert "Ана" in text  # orjson writes UTF-8 as it is; json.dumps would have written \\u escapes
