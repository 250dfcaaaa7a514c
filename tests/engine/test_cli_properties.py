"""Whatever `replay` is given, it answers: exit 0 with a result, or exit 2 with one line on stderr.

Run in-process (the same `main` the command line runs) so that hypothesis can try thousands of
inputs; an exception escaping `main` is the traceback the command line would print.
"""

import copy
import io
import json
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.__main__ import main
from tests.engine.test_handfile import EXAMPLE


def run_main(args: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    streams = [io.TextIOWrapper(io.BytesIO(data), encoding="utf-8") for data in (stdin, b"", b"")]
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's way out
        code = exc.code
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    for stream in streams[1:]:
        stream.flush()
    return code, streams[1].buffer.getvalue(), streams[2].buffer.getvalue()


def check_answer(stdin: bytes) -> None:
    code, out, err = run_main(["replay", "-"], stdin)
    if code == 0:
        assert err == b""
        result = json.loads(out)
        assert set(result) >= {"finished", "winner", "pot", "chips", "points", "svaras", "refused", "to_act"}
        # HAND_FORMAT.md: an unfinished hand names who acts; a finished one names nobody.
        assert (result["to_act"] is None) == result["finished"]
    else:
        assert code == 2 and out == b""
        assert err.startswith(b"error: ") and err.endswith(b"\n") and err.count(b"\n") == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
NAMES = ["ann", "bob", "cem", "dan"]
CARD_TEXTS = ["7C", "AH", "KD", "8S", "9S", "QC", "10H", "JD", "7D", "TS", "7♥", "8h", "XX", "", "10"]


def maybe(strategy):
    """Mostly the right kind of value, sometimes any JSON at all."""
    return st.one_of(strategy, strategy, strategy, json_values)


hand_like = st.fixed_dictionaries(
    {
        "stake": maybe(st.integers(min_value=-5, max_value=60)),
        "dark_play": maybe(st.booleans()),
        "players": maybe(
            st.lists(
                st.fixed_dictionaries(
                    {"name": maybe(st.sampled_from(NAMES)), "chips": maybe(st.integers(-10, 600))}
                ),
                max_size=8,
            )
        ),
        "dealer": maybe(st.sampled_from(NAMES)),
        "decks": maybe(st.lists(st.lists(maybe(st.sampled_from(CARD_TEXTS)), max_size=20), max_size=3)),
        "actions": maybe(
            st.lists(
                st.tuples(
                    maybe(st.sampled_from(NAMES)),
                    maybe(
                        st.sampled_from(["dark", "decline", "fold", "pass", "call", "raise", "join", "skip"])
                    ),
                )
                .map(list)
                .flatmap(lambda a: st.just(a) | maybe(st.integers(0, 200)).map(lambda n: [*a, n])),
                max_size=12,
            )
        ),
    },
    optional={"format": maybe(st.just("svara-hand/1"))},
)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=200))
def test_any_bytes(raw):
    check_answer(raw)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_any_json(value):
    check_answer(json.dumps(value).encode())


@settings(max_examples=500, deadline=None)
@given(data=hand_like)
def test_anything_shaped_like_a_hand_file(data):
    check_answer(json.dumps(data, ensure_ascii=False).encode())


@settings(max_examples=300, deadline=None)
@given(
    actions=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bob", "cem"]),
            st.sampled_from(["dark", "decline", "fold", "call", "raise"]),
        )
        .map(list)
        .flatmap(lambda a: st.just(a) | st.integers(0, 600).map(lambda n: [*a, n])),
        max_size=20,
    )
)
def test_the_example_with_any_moves(actions):
    # Valid files with every kind of move sequence: always exit 0, in a state HAND_FORMAT.md describes.
    data = copy.deepcopy(EXAMPLE)
    data["actions"] = actions
    code, out, err = run_main(["replay", "-"], json.dumps(data).encode())
    assert (code, err) == (0, b"")
    check_answer(json.dumps(data).encode())
