"""The provably fair deck (RULES.md §6); the algorithm is written down in docs/fairness.md.

Before a hand the site draws a secret server seed and shows every player ``seed_hash`` of it.
The deck of each deal is then a fixed function of that seed, the players' client seeds, the
hand number (``nonce``) and the deal index (``deal``: 0 for the hand, 1 for its first svara
replay, ...). When the hand is over the seed is revealed and ``verify_hand`` (or any
reimplementation of docs/fairness.md) recomputes the decks and compares them with what was dealt.

Outline: HMAC-SHA-256 keyed with the 32 seed bytes turns an unambiguous encoding of the other
inputs plus a block counter into a stream of bytes; the stream is read as unsigned 32-bit
big-endian integers; Fisher-Yates from the last position down draws each index by rejection
sampling, so there is no modulo bias. The module uses ``secrets`` and ``hashlib`` only: never
``random``, whose generator is predictable from its output.
"""

from __future__ import annotations

import hashlib
import operator
import re
import secrets
import struct
import unicodedata
from collections.abc import Sequence

from games.engine.cards import DECK, Card, CardError, card_text, parse_card

__all__ = [
    "DOMAIN_TAG",
    "MAX_CLIENT_SEED_CHARS",
    "MAX_DEAL",
    "MAX_NONCE",
    "hmac_message",
    "is_settable_client_seed",
    "new_client_seed",
    "new_server_seed",
    "seed_hash",
    "shuffled_deck",
    "verify_hand",
]

# A fixed prefix on every HMAC message, so these bytes can never be mistaken for (or replayed
# as) a message of some other protocol that happens to use the same key, and so a future change
# of the algorithm can say so by changing the tag.
DOMAIN_TAG: bytes = b"svara-deck/1"
MAX_CLIENT_SEED_CHARS = 64
MAX_NONCE = 2**64 - 1  # encoded as 8 bytes
MAX_DEAL = 2**32 - 1  # encoded as 4 bytes

_SEED_RE = re.compile(r"[0-9a-fA-F]{64}")
_U32 = 2**32
_BLOCK_WORDS = struct.Struct(">8I")  # one 32-byte HMAC block = eight big-endian uint32
# The 31 draws of a shuffle, in order: (n, limit) for i = 31, 30, ..., 1 with n = i + 1 the size of
# the range [0, i]. Accepting only values below limit = 2**32 - 2**32 % n, the largest multiple of
# n not above 2**32, makes every residue mod n equally likely. Precomputed because the benchmark
# (bench/engine.py) shuffles for every simulated hand.
_DRAWS: tuple[tuple[int, int], ...] = tuple(
    (i + 1, _U32 - _U32 % (i + 1)) for i in range(len(DECK) - 1, 0, -1)
)


def new_server_seed() -> str:
    """A fresh secret server seed: 32 bytes from ``secrets``, as 64 lowercase hex digits."""
    return secrets.token_hex(32)


# What a player may set as their client seed at the site (docs/fairness.md, "What a player may
# set"): the algorithm takes any text, but a seed is stored, shown and sent to every viewer, so it
# holds only visible characters and spaces: letters, marks, numbers, punctuation, symbols (L, M,
# N, P, S) and the space separators (Zs). Control characters (NUL among them: PostgreSQL's jsonb
# refuses it), format characters, surrogates, private-use and unassigned code points are not.
SETTABLE_SEED_CATEGORIES = frozenset("LMNPS")


def is_settable_client_seed(seed: object) -> bool:
    """True for a client seed a player may set: 1 to 64 allowed characters, not only spaces."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= MAX_CLIENT_SEED_CHARS or not seed.strip():
        return False
    return all(
        unicodedata.category(char)[0] in SETTABLE_SEED_CATEGORIES or unicodedata.category(char) == "Zs"
        for char in seed
    )


def new_client_seed() -> str:
    """A default client seed for a player who has not chosen one (16 lowercase hex digits)."""
    return secrets.token_hex(8)


def _seed_bytes(server_seed: object) -> bytes:
    # Fast path: 64 characters that hex-decode to 32 bytes are exactly 64 hex digits, because
    # bytes.fromhex takes only ASCII hex digits and skips only whitespace (which would leave
    # fewer than 32 bytes). It is one C call where the regex below costs several.
    if type(server_seed) is str and len(server_seed) == 64:
        try:
            raw = bytes.fromhex(server_seed)
        except ValueError:
            raw = b""
        if len(raw) == 32:
            return raw
    # fullmatch, not match + "$": "$" would let a trailing newline through, and bytes.fromhex
    # alone would skip spaces, so two different strings could name the same seed.
    if not isinstance(server_seed, str) or not _SEED_RE.fullmatch(server_seed):
        shown = server_seed if not isinstance(server_seed, str) or len(server_seed) <= 80 else "…"
        raise ValueError(
            f"server seed must be exactly 64 hexadecimal digits (32 bytes), got {shown!r}"
            + (f" ({len(server_seed)} characters)" if isinstance(server_seed, str) else "")
        )
    return bytes.fromhex(server_seed)


def seed_hash(server_seed: str) -> str:
    """SHA-256 of the seed's 32 bytes (the hex decoded, not the 64 characters), lowercase hex.

    Hashing the bytes means ``ABCD…`` and ``abcd…`` name the same seed and the same hash.
    """
    return hashlib.sha256(_seed_bytes(server_seed)).hexdigest()


def _check_whole(value: object, *, name: str, maximum: int) -> int:
    # bool is an int subclass; True as a hand number is a caller's bug, not hand 1.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise ValueError(f"{name} must be a whole number from 0 to {maximum}, got {value!r}")
    return value


def _encode_client_seeds(client_seeds: object) -> bytes:
    # A bare string is itself a Sequence[str]; taking "abc" as seeds "a", "b", "c" would be a
    # silent, unverifiable mistake.
    if isinstance(client_seeds, (str, bytes)) or not isinstance(client_seeds, Sequence):
        raise ValueError(f"client seeds must be a list of strings, got {client_seeds!r}")
    parts = [struct.pack(">I", len(client_seeds))]
    for index, seed in enumerate(client_seeds):
        if not isinstance(seed, str):
            raise ValueError(f"client seed {index + 1} must be a string, got {seed!r}")
        if len(seed) > MAX_CLIENT_SEED_CHARS:
            raise ValueError(
                f"client seed {index + 1} is {len(seed)} characters long;"
                f" at most {MAX_CLIENT_SEED_CHARS} are allowed"
            )
        try:
            raw = seed.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates have no UTF-8 form
            raise ValueError(f"client seed {index + 1} is not valid Unicode text: {exc.reason}") from None
        parts.append(struct.pack(">I", len(raw)) + raw)
    return b"".join(parts)


def _message_prefix(client_seeds: Sequence[str], nonce: int, deal: int) -> bytes:
    # The checks of _check_whole, inlined for the usual case (exact ints in range): this runs
    # for every deal the benchmark shuffles. Anything else goes through _check_whole, which
    # refuses with the reason.
    if not (type(nonce) is int and 0 <= nonce <= MAX_NONCE):
        _check_whole(nonce, name="nonce (hand number)", maximum=MAX_NONCE)
    if not (type(deal) is int and 0 <= deal <= MAX_DEAL):
        _check_whole(deal, name="deal index", maximum=MAX_DEAL)
    # Fixed-width integers and length-prefixed strings: every field's end is known before it is
    # read, so no two different inputs share an encoding (["a", "bc"] vs ["ab", "c"]).
    if type(client_seeds) in (list, tuple) and set(map(type, client_seeds)) <= _STR_ONLY:
        # A table's seeds repeat hand after hand.
        key = tuple(client_seeds)
        encoded = _encoded_seed_cache.get(key)
        if encoded is None:
            encoded = _encoded_seeds(key)
    else:
        encoded = _encode_client_seeds(client_seeds)  # refuses, with the reason
    return DOMAIN_TAG + _NONCE_DEAL.pack(nonce, deal) + encoded


_STR_ONLY = frozenset({str})
_NONCE_DEAL = struct.Struct(">QI")


_encoded_seed_cache: dict[tuple[str, ...], bytes] = {}
_ENCODED_SEED_CACHE_SIZE = 4096


def _encoded_seeds(client_seeds: tuple[str, ...]) -> bytes:
    # A plain dict, not functools.lru_cache: a hit is one lookup, and tables are few enough that
    # forgetting everything when it is full costs nothing that matters.
    encoded = _encoded_seed_cache.get(client_seeds)
    if encoded is None:
        encoded = _encode_client_seeds(client_seeds)
        if len(_encoded_seed_cache) >= _ENCODED_SEED_CACHE_SIZE:
            _encoded_seed_cache.clear()
        _encoded_seed_cache[client_seeds] = encoded
    return encoded


def hmac_message(*, client_seeds: Sequence[str], nonce: int, deal: int = 0, counter: int = 0) -> bytes:
    """The exact bytes HMAC'd for one 32-byte block (docs/fairness.md, "The message")."""
    _check_whole(counter, name="block counter", maximum=MAX_DEAL)
    return _message_prefix(client_seeds, nonce, deal) + struct.pack(">I", counter)


# HMAC-SHA-256 (RFC 2104) spelled out over ``hashlib``, which is several times cheaper than the
# ``hmac`` module per block: the inner hash absorbs key ⊕ ipad and the message prefix once, and
# each block then copies the two prepared states and adds the 4-byte counter. The key is 32
# bytes, shorter than SHA-256's 64-byte block, so it is zero-padded, never hashed. The tests
# check the blocks byte for byte against the ``hmac`` module.

# Byte-wise XOR with HMAC's ipad (0x36) and opad (0x5C) as translate tables: one C call each.
_XOR_IPAD = bytes(b ^ 0x36 for b in range(256))
_XOR_OPAD = bytes(b ^ 0x5C for b in range(256))
# Copying an empty state is cheaper than calling ``hashlib.sha256()``, which looks the
# algorithm up by name each time.
_EMPTY_SHA256 = hashlib.sha256()


def _hmac_states(key: bytes, prefix: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """The inner state (key ⊕ ipad, then ``prefix``) and the outer state (key ⊕ opad)."""
    padded = key.ljust(64, b"\0")
    inner = _EMPTY_SHA256.copy()
    inner.update(padded.translate(_XOR_IPAD) + prefix)
    outer = _EMPTY_SHA256.copy()
    outer.update(padded.translate(_XOR_OPAD))
    return inner, outer


def _hmac_block(inner: hashlib._Hash, outer: hashlib._Hash, counter: bytes) -> bytes:
    """HMAC-SHA-256(key, prefix ‖ counter), leaving the two states as they were."""
    block_inner = inner.copy()
    block_inner.update(counter)
    block_outer = outer.copy()
    block_outer.update(block_inner.digest())
    return block_outer.digest()


class _WordStream:
    """Unsigned 32-bit big-endian integers read from HMAC-SHA-256(key, prefix ‖ counter), counter 0, 1, …

    ``shuffled_deck`` reads its first four blocks without a stream and builds one only in the
    rare shuffle that rejects a number (``_shuffle_with_rejections``).
    """

    __slots__ = ("_counter", "_inner", "_outer", "words")

    def __init__(self, *, key: bytes, prefix: bytes, blocks: int) -> None:
        self._inner, self._outer = _hmac_states(key, prefix)
        self._counter = 0
        self.words: list[int] = []
        for _ in range(blocks):
            self.extend()

    def extend(self) -> None:
        """Append the next block's eight words."""
        block = _hmac_block(self._inner, self._outer, struct.pack(">I", self._counter))
        self.words.extend(_BLOCK_WORDS.unpack(block))
        self._counter += 1


# Fisher-Yates on 32 cards makes 31 draws and four blocks give 32 words, so a further block is
# computed only after two rejections (about one shuffle in 20 million rejects even one word).
_FIRST_BLOCKS = 4
_FIRST_COUNTERS = tuple(struct.pack(">I", c) for c in range(_FIRST_BLOCKS))
_FIRST_WORDS = struct.Struct(f">{8 * _FIRST_BLOCKS}I")

# A fair limit is 2**32 - (2**32 mod n) with n <= 32, so it exceeds 0xFFFFFF00, and a number is
# rejected only if its first three bytes are all 0xFF. Blocks without three 0xFF bytes in a row
# anywhere (all but about one shuffle in 130,000) therefore reject nothing, and one substring
# search in C says so, where comparing the 31 numbers with their limits costs several times as much.
_HIGH_BYTES = b"\xff\xff\xff"
_HIGH_WORD = 0xFFFFFF00


def _first_blocks(key: bytes, prefix: bytes) -> bytes:
    """Blocks 0-3 joined (128 bytes): ``_hmac_states`` and ``_hmac_block`` written out in one
    function, as every shuffle runs it. The last block updates the two states themselves rather
    than copies: nothing needs them after it, and it saves two of the eight state copies."""
    padded = key.ljust(64, b"\0")
    inner = _EMPTY_SHA256.copy()
    inner.update(padded.translate(_XOR_IPAD) + prefix)
    outer = _EMPTY_SHA256.copy()
    outer.update(padded.translate(_XOR_OPAD))
    digests = []
    for counter in _FIRST_COUNTERS[:-1]:
        block_inner = inner.copy()
        block_inner.update(counter)
        block_outer = outer.copy()
        block_outer.update(block_inner.digest())
        digests.append(block_outer.digest())
    inner.update(_FIRST_COUNTERS[-1])
    outer.update(inner.digest())
    digests.append(outer.digest())
    return b"".join(digests)


def _rejects_none(blocks: bytes, limits: tuple[int, ...], fair_limits: bool) -> bool:
    """Whether the 32 words of ``blocks`` (blocks 0-3) are each below the limit of their draw."""
    # find, not "in": bytes.__contains__ first tries the operand as an int, and the TypeError it
    # makes and drops costs more than the search.
    if fair_limits and blocks.find(_HIGH_BYTES) < 0:
        return True
    return all(map(operator.lt, _FIRST_WORDS.unpack(blocks), limits))


def shuffled_deck(*, server_seed: str, client_seeds: Sequence[str], nonce: int, deal: int = 0) -> list[Card]:
    """The deck for one deal, top card first, as a pure function of its inputs.

    ``client_seeds`` are used in the order given; the site passes the players' seeds in seat
    order (clockwise) and stores that list with the hand. ``nonce`` is the hand number; ``deal``
    is 0 for the hand's first deal and k for its k-th svara replay. Bad inputs raise ValueError
    with a message a person can read.
    """
    key = _seed_bytes(server_seed)
    prefix = _message_prefix(client_seeds, nonce, deal)
    blocks = _first_blocks(key, prefix)
    sizes, limits, fair_limits = _split_draws()
    if _rejects_none(blocks, limits, fair_limits):
        # No word rejected (all but about one shuffle in 20 million): word k is draw k, and the
        # remainders run in C. The same result as the general loop of _shuffle_with_rejections.
        deck = list(DECK)
        i = len(DECK) - 1
        for j in map(operator.mod, _FIRST_WORDS.unpack(blocks), sizes):
            deck[i], deck[j] = deck[j], deck[i]
            i -= 1
        return deck
    return _shuffle_with_rejections(key, prefix)


def _shuffle_with_rejections(key: bytes, prefix: bytes) -> list[Card]:
    """Fisher-Yates as docs/fairness.md spells it: reject, draw again, run on into more blocks."""
    stream = _WordStream(key=key, prefix=prefix, blocks=_FIRST_BLOCKS)
    words = stream.words
    deck = list(DECK)
    used = 0
    for n, limit in _DRAWS:
        # i = n - 1 is the position being filled, from the bottom of the deck up.
        while True:
            if used == len(words):
                stream.extend()
            value = words[used]
            used += 1
            if value < limit:
                break
        j = value % n
        deck[n - 1], deck[j] = deck[j], deck[n - 1]
    return deck


_split_of: object = None
_split: tuple[tuple[int, ...], tuple[int, ...], bool] = ((), (), False)


def _split_draws() -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """``_DRAWS`` as two tuples (sizes, limits) for ``map``, and whether every limit is above
    ``_HIGH_WORD`` (true of the fair limits; the tests lower them); recomputed if ``_DRAWS`` is replaced."""
    global _split_of, _split
    if _split_of is not _DRAWS:
        limits = tuple(limit for _, limit in _DRAWS)
        _split_of, _split = _DRAWS, (tuple(n for n, _ in _DRAWS), limits, min(limits) > _HIGH_WORD)
    return _split


def _deck_name(index: int) -> str:
    return "deck 1 (the first deal)" if index == 0 else f"deck {index + 1} (svara replay {index})"


# A deal needs three cards for each of at least two players (HAND_FORMAT.md); a shorter stored
# deck would "match" almost anything and so prove nothing.
_MIN_DECK = 6


def verify_hand(
    *,
    server_seed: str,
    server_seed_hash: str,
    client_seeds: Sequence[str],
    nonce: int,
    decks: Sequence[Sequence[Card | str]],
) -> list[str]:
    """Check a stored hand (HAND_FORMAT.md, "Stored hands"); return the problems, [] when it holds.

    The revealed seed must hash to ``server_seed_hash``, and ``decks[k]`` must be a prefix (unused
    cards may be left out) of ``shuffled_deck(..., nonce=nonce, deal=k)``; ``decks`` is empty for
    a hand that ended before its deal. Cards may be ints or
    card text (``10H``). Never raises for bad input: a public check page reports it instead.
    """
    problems: list[str] = []
    try:
        actual_hash = seed_hash(server_seed)
    except ValueError as exc:
        return [str(exc)]
    if not isinstance(server_seed_hash, str) or actual_hash != server_seed_hash.strip().lower():
        problems.append(
            f"SHA-256 of the revealed server seed is {actual_hash}, "
            f"but the hash shown during play was {server_seed_hash!r}"
        )
    try:
        _message_prefix(client_seeds, nonce, 0)
    except ValueError as exc:
        return [*problems, str(exc)]
    if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence):
        return [*problems, "the hand's decks are not a list of decks"]
    # No decks: a hand that ended before its deal (HAND_FORMAT.md), which dealt nothing to compare.
    # Whether it really ended there is for its replay to say (verify.check_hand runs it): a file
    # stripped of a deck it dealt does not replay.

    for index, stored in enumerate(decks):
        name = _deck_name(index)
        if isinstance(stored, (str, bytes)) or not isinstance(stored, Sequence):
            problems.append(f"{name} is not a list of cards")
            continue
        try:
            cards = [_as_card(card) for card in stored]
        except (CardError, ValueError) as exc:
            problems.append(f"{name}: {exc}")
            continue
        if len(cards) < _MIN_DECK:
            problems.append(f"{name} has {len(cards)} cards; a deal uses at least {_MIN_DECK}")
            continue
        if len(cards) > len(DECK):
            problems.append(f"{name} has {len(cards)} cards; the deck has only {len(DECK)}")
            continue
        expected = shuffled_deck(server_seed=server_seed, client_seeds=client_seeds, nonce=nonce, deal=index)
        for position, (got, want) in enumerate(zip(cards, expected, strict=False)):
            if got != want:
                problems.append(
                    f"{name}, card {position + 1}: the hand shows {card_text(got)}, "
                    f"the seeds give {card_text(want)}"
                )
                break
    return problems


def _as_card(card: object) -> Card:
    if isinstance(card, bool):
        raise ValueError(f"not a card: {card!r}")
    if isinstance(card, int):
        if not 0 <= card < len(DECK):
            raise ValueError(f"not a card: {card!r} (card numbers are 0 to {len(DECK) - 1})")
        return card
    return parse_card(card)
