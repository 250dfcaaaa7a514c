"""The versioned state store and the turn-deadline store for tables in play.

A table in play is one JSON document with an integer version. Every change is a
compare-and-set on that version: read ``(version, doc)``, compute the new doc with a pure
function, write it back only if the version is still the one read, otherwise re-read and retry
(``retry_update``). Two processes serving the same table therefore never interleave changes,
and a client's "I saw version V" can be checked against the store.

Why a Lua script for the compare-and-set on Redis: the version check, the write and the
deadline change must be one atomic step. A Lua script runs alone on the Redis server, needs one
round trip, and cannot be left half done by a process that dies between commands.
WATCH/MULTI would also be atomic, but needs a dedicated connection per attempt and three round
trips; the script is simpler to reason about and cheaper under contention.

Why the turn deadline lives beside the state and is written in the same step: a deadline is part
of the table's state ("seat 3 must act by 12:00:30"). If they were written separately, a
process dying between the two writes would leave a turn with no clock (the game hangs) or a
clock for a turn that has already moved on. Written together, every version has exactly the
deadline its writer meant. Deadlines are kept in the store (a sorted set on Redis), not in
process memory, so after every process restarted a new one still finds and fires them; and
``claim_due`` removes due deadlines atomically, so with several processes each deadline is
claimed by exactly one of them.

A deadline records the state version it was set for, and the state keeps the deadline it was
last given (``Versioned.deadline``, which stays visible after the deadline was claimed). The
clock's callback compares the two (``DueDeadline.matches``): if the state's deadline is no
longer the one claimed, a player acted in between and the timeout is ignored. Writes with
``deadline=KEEP`` (a chat line, a spectator joining) bump the version without disturbing the
turn's deadline.

Both backends store the document as JSON text, so both accept and return exactly the same
things (a tuple comes back as a list, integer keys as strings; NaN is refused) and every read
returns a freshly decoded document that the caller may mutate freely.

Contract, for both backends (tests/live/test_store_contract.py):

- ``create`` raises ``TableExists`` (a ``StateConflict``) when the table exists.
- ``compare_and_set`` returns ``None`` on a version conflict, including when the table does
  not exist (its stored version counts as 0); ``expected_version=0`` creates the table.
- Table ids are ``str``: ``5`` and ``"5"`` would be one key on Redis and two in memory, so
  anything else raises ``TypeError``.
- If the store loses a table (Redis flushed), ``get`` returns ``None``; the table service
  rebuilds it from the database, and versions start again at 1.

The memory backend is for one process (``make run``); Redis is for several.
"""

from __future__ import annotations

import abc
import asyncio
import enum
import json
import random
import secrets
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

import orjson
import redis.asyncio as aioredis

from games.live.redis_target import async_client

Doc: TypeAlias = dict[str, Any]

DEFAULT_PREFIX: Final = "svara:live:"
SEEN_KEPT: Final = 10_000  # tables whose last state a Redis store instance remembers (``recent``)


class Keep(enum.Enum):
    """Type of ``KEEP``: "leave the table's turn deadline as it is"."""

    KEEP = "keep"


KEEP: Final = Keep.KEEP


@dataclass(frozen=True)
class Deadline:
    """A turn deadline: fire at ``at`` (unix seconds) for the state ``version`` it belongs to.

    ``version=None`` when writing means "the version this write creates", which is nearly always
    what the caller wants; the store fills it in, so deadlines read back always have an int.
    """

    at: float
    version: int | None = None


@dataclass(frozen=True)
class DueDeadline:
    """A deadline claimed by ``claim_due``: it is no longer pending anywhere."""

    table_id: str
    at: float
    version: int

    def matches(self, current: Versioned | None) -> bool:
        """True while the table's state still carries this deadline (nobody acted since)."""
        return current is not None and current.deadline == Deadline(at=self.at, version=self.version)


@dataclass(frozen=True)
class Versioned:
    """One table's state: the document, its version, and the deadline it was last given.

    ``deadline`` stays set after the deadline was claimed (it says which turn clock the state
    carries, not whether it is still pending); writes with a new deadline or ``None`` replace it.
    ``raw`` is the document's JSON text as stored, when the read or write had it (every backend
    does; '' for a state made by hand): the table service announces it as it is.
    ``incarnation`` is the Redis store's token for this life of the table ('' elsewhere): it rides
    along with an announcement, so another process may ``observe`` the state it announces.
    """

    version: int
    doc: Doc
    deadline: Deadline | None = None
    raw: str = field(default="", compare=False, repr=False)
    incarnation: str = field(default="", compare=False, repr=False)


DeadlineArg: TypeAlias = Deadline | Literal[Keep.KEEP] | None
UpdateFn: TypeAlias = Callable[[Versioned], "tuple[Doc, DeadlineArg] | None"]


class StateError(Exception):
    """Base of the store's errors."""


class StateConflict(StateError):
    """A write lost against a concurrent one (``create`` on an existing table, retries used up)."""


class TableExists(StateConflict):
    """``create`` for a table that already exists."""


class TableMissing(StateError):
    """``retry_update`` on a table the store does not hold (never created, deleted, or lost)."""


class UnreadableTable(StateError):
    """The store holds text for the table that is not a table's document: not JSON, not a JSON
    object (raised by ``get``), or an object of the wrong shape (raised by the table service's
    check, games.live.document.check_shape). The table service quarantines it and rebuilds the
    table from the database, so one bad record holds up no other table."""

    def __init__(self, table_id: str, reason: str) -> None:
        super().__init__(f"table {table_id}: {reason}")
        self.table_id = table_id
        self.reason = reason


@dataclass(frozen=True)
class Quarantined:
    """A table's record set aside as unreadable (``StateStore.quarantine``), kept for a person to
    look at: the text as it was stored, why, and when (unix seconds)."""

    table_id: str
    reason: str
    at: float
    raw: str


def _check_table_id(table_id: object) -> str:
    if not isinstance(table_id, str) or not table_id:
        raise TypeError(f"table_id must be a non-empty str, got {table_id!r}")
    return table_id


# Reads decode with orjson, about four times as fast as json.loads on a table's document (the
# hottest path of a busy server: every change reads and writes one).
_decode: Final = orjson.loads


def _decode_record(table_id: str, text: str) -> Doc:
    """The stored text as a document, or ``UnreadableTable``: a bad record must not take the
    reader (the sweep, the worker's start) down with a decoding error."""
    try:
        doc = _decode(text)
    except orjson.JSONDecodeError as exc:
        raise UnreadableTable(table_id, f"not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise UnreadableTable(table_id, f"not a JSON object but {type(doc).__name__}")
    return doc


def _encode(doc: object) -> tuple[str, Doc]:
    """The document's JSON text, and the document as read back from that text (what the store
    hands out: a fresh copy, as JSON has it).

    orjson writes a table's document about fifteen times as fast as ``json.dumps``, but it quietly
    writes NaN and the infinities as null, where the contract refuses them (a doc holding one is
    a bug: refuse it at the write). Reading the text back and comparing catches that, and anything
    else JSON would change (tuples, integer keys); the store reads it back anyway, so the check
    costs only the comparison. Such documents go the old way: ``json.dumps`` with
    ``allow_nan=False`` refuses NaN, or writes what it always did; a document whose text the
    store's reader would read back differently (an integer past 64 bits comes back a float) is
    refused too.
    """
    if not isinstance(doc, dict):
        raise TypeError(f"state doc must be a dict, got {type(doc).__name__}")
    try:
        fast = orjson.dumps(doc)
    except TypeError:  # orjson.JSONEncodeError: a key or value orjson will not write
        fast = None
    if fast is not None:
        back = _decode(fast)
        if back == doc:
            return fast.decode(), back
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    back = _decode(text)
    if back != json.loads(text):
        raise ValueError("state doc holds a number the store cannot read back exactly")
    return text, back


def _check_expected(expected_version: int) -> None:
    if isinstance(expected_version, bool) or not isinstance(expected_version, int) or expected_version < 0:
        raise TypeError(f"expected_version must be an int >= 0, got {expected_version!r}")


class StateStore(abc.ABC):
    """What the table service sees; ``MemoryStateStore`` and ``RedisStateStore`` implement it."""

    @abc.abstractmethod
    async def get(self, table_id: str) -> Versioned | None:
        """The table's state (a fresh copy), or None when the store does not hold the table."""

    @abc.abstractmethod
    async def compare_and_set(
        self, table_id: str, *, expected_version: int, doc: Doc, deadline: DeadlineArg = KEEP
    ) -> Versioned | None:
        """Write ``doc`` as version ``expected_version + 1`` if the stored version is ``expected_version``.

        In the same atomic step set (``Deadline``), clear (``None``) or keep (``KEEP``) the turn
        deadline. Returns the new state, or None when the stored version differs (a missing table
        has version 0, so ``expected_version=0`` creates it).
        """

    @abc.abstractmethod
    async def delete(self, table_id: str) -> bool:
        """Remove the table and its deadline; True if it existed."""

    @abc.abstractmethod
    async def table_ids(self) -> list[str]:
        """Every table the store holds, sorted (for rebuild and admin; not for hot paths)."""

    @abc.abstractmethod
    async def claim_due(self, *, now: float, limit: int = 100) -> list[DueDeadline]:
        """Remove and return up to ``limit`` deadlines with ``at <= now``, earliest first.

        Atomic: with several callers (processes) on one store, each deadline goes to exactly one.
        """

    @abc.abstractmethod
    async def next_deadline(self) -> float | None:
        """When the earliest pending deadline is due, or None when there is none."""

    # Both backends implement these three; a wrapper made for a test need not.
    async def quarantine(self, table_id: str, *, reason: str, at: float) -> bool:
        """Set the table's record aside, as it is stored, under its own key, and forget the table
        and its deadline (as ``delete``): the next use rebuilds it from the database. A record
        quarantined again replaces the one kept. True if there was a record."""
        raise NotImplementedError

    async def quarantined(self) -> list[Quarantined]:
        """The records set aside, by table id."""
        raise NotImplementedError

    async def forget_quarantined(self, table_id: str) -> bool:
        """Drop a quarantined record (a person looked at it); True if there was one."""
        raise NotImplementedError

    async def aclose(self) -> None:  # noqa: B027 - optional hook, the memory store has nothing to close
        """Release connections."""

    def recent(self, table_id: str) -> Versioned | None:
        """The table's state as this store instance last read or wrote it, without asking the
        backend: possibly stale (another process wrote since), so only a compare-and-set may
        trust it (``retry_update``). The state itself, shared: its document is read-only. None
        when it has none; the memory store, always current and cheap to read, keeps none."""
        return None

    def observe(self, table_id: str, state: Versioned) -> None:
        """Remember a state another process wrote and announced (with its ``raw`` text and
        ``incarnation``) as ``recent``, when it is newer than the one remembered. Trusted no more
        than any remembered state: the compare-and-set checks its version and incarnation."""
        return None  # the memory store remembers nothing: it is always current

    async def create(self, table_id: str, doc: Doc, *, deadline: Deadline | None = None) -> Versioned:
        """Store a new table at version 1; raise ``TableExists`` if it is already there."""
        created = await self.compare_and_set(table_id, expected_version=0, doc=doc, deadline=deadline)
        if created is None:
            raise TableExists(table_id)
        return created


# ---------------------------------------------------------------- memory


@dataclass(frozen=True)
class _Record:
    version: int
    doc_json: str
    deadline: Deadline | None


class MemoryStateStore(StateStore):
    """One process: a dict of records, one lock.

    The lock is a ``threading.Lock``, not an ``asyncio.Lock`` per table: the process-wide store is
    reached from several event loops (Daphne's, ``async_to_sync`` threads, each test's loop) and an
    asyncio lock belongs to one loop. Nothing awaits while holding it and every critical section is
    a few dict operations, so it never blocks a loop noticeably and needs no per-table split.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, _Record] = {}
        self._pending: dict[str, Deadline] = {}  # table_id -> deadline not yet claimed
        self._quarantined: dict[str, Quarantined] = {}

    async def get(self, table_id: str) -> Versioned | None:
        _check_table_id(table_id)
        with self._lock:
            record = self._records.get(table_id)
        if record is None:
            return None
        return Versioned(
            version=record.version,
            doc=_decode_record(table_id, record.doc_json),
            deadline=record.deadline,
            raw=record.doc_json,
        )

    async def compare_and_set(
        self, table_id: str, *, expected_version: int, doc: Doc, deadline: DeadlineArg = KEEP
    ) -> Versioned | None:
        _check_table_id(table_id)
        _check_expected(expected_version)
        doc_json, written = _encode(doc)
        with self._lock:
            current = self._records.get(table_id)
            if (current.version if current else 0) != expected_version:
                return None
            version = expected_version + 1
            if deadline is KEEP:
                new_deadline = current.deadline if current else None
            elif deadline is None:
                new_deadline = None
                self._pending.pop(table_id, None)
            else:
                stamped = version if deadline.version is None else deadline.version
                new_deadline = Deadline(at=float(deadline.at), version=stamped)
                self._pending[table_id] = new_deadline
            self._records[table_id] = _Record(version=version, doc_json=doc_json, deadline=new_deadline)
        return Versioned(version=version, doc=written, deadline=new_deadline, raw=doc_json)

    async def delete(self, table_id: str) -> bool:
        _check_table_id(table_id)
        with self._lock:
            self._pending.pop(table_id, None)
            return self._records.pop(table_id, None) is not None

    def count(self) -> int:
        """Tables held (the health check's and the metrics' figure, read without a loop)."""
        with self._lock:
            return len(self._records)

    async def table_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._records)

    async def quarantine(self, table_id: str, *, reason: str, at: float) -> bool:
        _check_table_id(table_id)
        with self._lock:
            self._pending.pop(table_id, None)
            record = self._records.pop(table_id, None)
            if record is None:
                return False
            self._quarantined[table_id] = Quarantined(
                table_id=table_id, reason=reason, at=at, raw=record.doc_json
            )
            return True

    async def quarantined(self) -> list[Quarantined]:
        with self._lock:
            return [self._quarantined[k] for k in sorted(self._quarantined)]

    def quarantined_count(self) -> int:
        """How many records are set aside (synchronous, for ``/healthz``)."""
        with self._lock:
            return len(self._quarantined)

    async def forget_quarantined(self, table_id: str) -> bool:
        with self._lock:
            return self._quarantined.pop(table_id, None) is not None

    def put_raw(self, table_id: str, text: str) -> None:
        """Store ``text`` as the table's record as it is, bypassing every check: for tests that
        need a bad record, as Redis would hold one written by hand or by an older release."""
        with self._lock:
            current = self._records.get(table_id)
            version = (current.version if current else 0) + 1
            self._records[table_id] = _Record(version=version, doc_json=text, deadline=None)

    async def claim_due(self, *, now: float, limit: int = 100) -> list[DueDeadline]:
        with self._lock:
            due = sorted(
                ((d.at, table_id, d) for table_id, d in self._pending.items() if d.at <= now),
                key=lambda item: (item[0], item[1]),
            )[:limit]
            for _, table_id, _ in due:
                del self._pending[table_id]
        return [
            DueDeadline(table_id=table_id, at=d.at, version=int(d.version or 0)) for _, table_id, d in due
        ]

    async def next_deadline(self) -> float | None:
        with self._lock:
            return min((d.at for d in self._pending.values()), default=None)


# ---------------------------------------------------------------- redis

# Keys, under the prefix P:
#   P t:<table_id>   hash: v (version), doc (JSON), dat + dv (the deadline the state was last given),
#                    i (incarnation: a random token set when the table is created, see below)
#   P deadlines      sorted set: member table_id, score = at; only deadlines not yet claimed
#   P tables         set of table ids (table_ids() without SCAN)
#   P q:<table_id>   hash: doc (the text as it was stored), reason, at: a record set aside as unreadable
#   P quarantined    set of the table ids with a record set aside (``/healthz`` counts it)
# Versions start again at 1 when a lost table is rebuilt, so "version 4" can name two different
# states, one from before the loss; a store instance that remembers the older one (``recent``)
# must not overwrite the newer. The incarnation tells them apart: a compare-and-set from a state
# this instance read or wrote carries the incarnation it saw, and loses if the table's differs.
# The claim script reads P t:<id> by name, which standalone Redis allows; a cluster would need the
# prefix to carry a hash tag such as "{svara}:" so all keys share a slot.

_CAS_LUA: Final = """
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if cur ~= tonumber(ARGV[2]) then
  return false
end
if cur == 0 then
  redis.call('HSET', KEYS[1], 'i', ARGV[8])
elseif ARGV[7] ~= '' and redis.call('HGET', KEYS[1], 'i') ~= ARGV[7] then
  return false
end
local v = tostring(cur + 1)
redis.call('HSET', KEYS[1], 'v', v, 'doc', ARGV[3])
if ARGV[4] == 'set' then
  local dv = ARGV[6]
  if dv == '' then dv = v end
  redis.call('HSET', KEYS[1], 'dat', ARGV[5], 'dv', dv)
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
elseif ARGV[4] == 'clear' then
  redis.call('HDEL', KEYS[1], 'dat', 'dv')
  redis.call('ZREM', KEYS[2], ARGV[1])
end
redis.call('SADD', KEYS[3], ARGV[1])
local d = redis.call('HMGET', KEYS[1], 'dat', 'dv', 'i')
return {v, d[1], d[2], d[3]}
"""

_CLAIM_LUA: Final = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local d = redis.call('HMGET', ARGV[3] .. id, 'dat', 'dv')
  if d[1] and d[2] then
    table.insert(out, id)
    table.insert(out, d[1])
    table.insert(out, d[2])
  end
end
return out
"""

_DELETE_LUA: Final = """
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return redis.call('DEL', KEYS[1])
"""


_QUARANTINE_LUA: Final = """
local kind = redis.call('TYPE', KEYS[1])['ok']
local doc = false
if kind == 'hash' then
  doc = redis.call('HGET', KEYS[1], 'doc') or ''
elseif kind == 'string' then
  doc = redis.call('GET', KEYS[1])
elseif kind ~= 'none' then
  doc = '(a Redis ' .. kind .. ')'
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1])
if not doc then
  return 0
end
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], 'doc', doc, 'reason', ARGV[2], 'at', ARGV[3])
redis.call('SADD', KEYS[5], ARGV[1])
return 1
"""


def quarantine_set_key(prefix: str) -> str:
    """The Redis set of the table ids whose record is quarantined (read by ``/healthz``)."""
    return f"{prefix}quarantined"


def _new_incarnation(expected_version: int) -> str:
    """A fresh incarnation token for a write that creates the table; other writes need none."""
    return secrets.token_hex(8) if expected_version == 0 else ""


def _deadline_from(at: str | None, version: str | None) -> Deadline | None:
    if at is None or version is None:
        return None
    return Deadline(at=float(at), version=int(version))


class RedisStateStore(StateStore):
    """Several processes: state, deadlines and the table list in Redis, changed by Lua scripts.

    A redis.asyncio client belongs to the event loop it first connects in; use one store per loop
    (``get_state_store`` does) and ``aclose`` it when done.
    """

    def __init__(self, client: aioredis.Redis, *, prefix: str = DEFAULT_PREFIX) -> None:
        self._redis = client
        self._prefix = prefix
        self._deadlines_key = f"{prefix}deadlines"
        self._tables_key = f"{prefix}tables"
        # register_script: EVALSHA, falling back to EVAL (and caching) after a SCRIPT FLUSH or restart.
        self._cas = client.register_script(_CAS_LUA)
        self._claim = client.register_script(_CLAIM_LUA)
        self._delete = client.register_script(_DELETE_LUA)
        self._quarantine = client.register_script(_QUARANTINE_LUA)
        self._quarantined_key = quarantine_set_key(prefix)
        # table_id -> the state last read, written or observed here (``recent``).
        self._seen: dict[str, Versioned] = {}

    @classmethod
    def from_url(cls, url: str, *, prefix: str = DEFAULT_PREFIX) -> RedisStateStore:
        """``url``: a plain Redis URL or a Redis Sentinel one (games/live/redis_target.py)."""
        return cls(async_client(url, decode_responses=True), prefix=prefix)

    @property
    def prefix(self) -> str:
        return self._prefix

    @property
    def client(self) -> aioredis.Redis:
        """The store's client, for neighbours that keep keys of their own under its prefix."""
        return self._redis

    def _state_key(self, table_id: str) -> str:
        return f"{self._prefix}t:{table_id}"

    async def get(self, table_id: str) -> Versioned | None:
        _check_table_id(table_id)
        try:
            version, doc_json, at, dv, incarnation = await self._redis.hmget(
                self._state_key(table_id), ["v", "doc", "dat", "dv", "i"]
            )
        except aioredis.ResponseError as exc:
            if "WRONGTYPE" not in str(exc):
                raise
            self._seen.pop(table_id, None)
            raise UnreadableTable(table_id, "not a Redis hash") from None
        if version is None or doc_json is None:
            self._seen.pop(table_id, None)
            return None
        try:
            doc = _decode_record(table_id, doc_json)
            deadline = _deadline_from(at, dv)
            number = int(version)
        except (UnreadableTable, ValueError) as exc:
            self._seen.pop(table_id, None)
            if isinstance(exc, UnreadableTable):
                raise
            raise UnreadableTable(table_id, f"a bad version or deadline ({exc})") from None
        state = Versioned(
            version=number,
            doc=doc,
            deadline=deadline,
            raw=doc_json,
            incarnation=incarnation or "",
        )
        self._remember(table_id, state)
        return state

    def recent(self, table_id: str) -> Versioned | None:
        # The state itself, not a copy: its document is read-only like every one the store hands
        # out (the table's functions copy before they change anything). Decoding it again for
        # every change was a tenth of a move's command.
        return self._seen.get(table_id)

    def observe(self, table_id: str, state: Versioned) -> None:
        # Players of one table on two processes: each move is written by the other process half
        # the time, and a remembered state that is always stale costs a refused write and a read.
        if not state.raw or not state.incarnation:
            return
        seen = self._seen.get(table_id)
        if seen is not None and seen.incarnation == state.incarnation and seen.version >= state.version:
            return  # what is remembered is as new (announcements may come out of order)
        self._remember(table_id, state)

    def _remember(self, table_id: str, state: Versioned) -> None:
        if len(self._seen) >= SEEN_KEPT and table_id not in self._seen:
            del self._seen[next(iter(self._seen))]  # the oldest remembered table
        self._seen[table_id] = state

    def _incarnation_at(self, table_id: str, version: int) -> str:
        """The incarnation this instance saw the table in at ``version``; '' when it did not see
        that version (the write then checks the version alone, as any other writer's)."""
        seen = self._seen.get(table_id)
        return seen.incarnation if seen is not None and seen.version == version else ""

    async def compare_and_set(
        self, table_id: str, *, expected_version: int, doc: Doc, deadline: DeadlineArg = KEEP
    ) -> Versioned | None:
        _check_table_id(table_id)
        _check_expected(expected_version)
        doc_json, written = _encode(doc)
        if deadline is KEEP:
            mode, at, dv = "keep", "", ""
        elif deadline is None:
            mode, at, dv = "clear", "", ""
        else:
            # repr() of a float round-trips exactly through Redis's double parsing and formatting.
            mode, at, dv = (
                "set",
                repr(float(deadline.at)),
                "" if deadline.version is None else str(deadline.version),
            )
        seen_incarnation = self._incarnation_at(table_id, expected_version)
        result = await self._cas(
            keys=[self._state_key(table_id), self._deadlines_key, self._tables_key],
            args=[
                table_id,
                expected_version,
                doc_json,
                mode,
                at,
                dv,
                seen_incarnation,
                _new_incarnation(expected_version),
            ],
        )
        if result is None:
            return None
        version, stored_at, stored_dv, incarnation = result
        state = Versioned(
            version=int(version),
            doc=written,
            deadline=_deadline_from(stored_at, stored_dv),
            raw=doc_json,
            incarnation=incarnation or "",
        )
        self._remember(table_id, state)
        return state

    async def delete(self, table_id: str) -> bool:
        _check_table_id(table_id)
        self._seen.pop(table_id, None)
        removed = await self._delete(
            keys=[self._state_key(table_id), self._deadlines_key, self._tables_key], args=[table_id]
        )
        return bool(removed)

    async def table_ids(self) -> list[str]:
        return sorted(await self._redis.smembers(self._tables_key))

    def _quarantine_key(self, table_id: str) -> str:
        return f"{self._prefix}q:{table_id}"

    async def quarantine(self, table_id: str, *, reason: str, at: float) -> bool:
        _check_table_id(table_id)
        self._seen.pop(table_id, None)
        moved = await self._quarantine(
            keys=[
                self._state_key(table_id),
                self._deadlines_key,
                self._tables_key,
                self._quarantine_key(table_id),
                self._quarantined_key,
            ],
            args=[table_id, reason, repr(float(at))],
        )
        return bool(moved)

    async def quarantined(self) -> list[Quarantined]:
        found = []
        for table_id in sorted(await self._redis.smembers(self._quarantined_key)):
            doc, reason, at = await self._redis.hmget(self._quarantine_key(table_id), ["doc", "reason", "at"])
            found.append(
                Quarantined(table_id=table_id, reason=reason or "", at=float(at or 0), raw=doc or "")
            )
        return found

    async def forget_quarantined(self, table_id: str) -> bool:
        _check_table_id(table_id)
        await self._redis.delete(self._quarantine_key(table_id))
        return bool(await self._redis.srem(self._quarantined_key, table_id))

    async def claim_due(self, *, now: float, limit: int = 100) -> list[DueDeadline]:
        if limit <= 0:
            return []
        flat = await self._claim(
            keys=[self._deadlines_key], args=[repr(float(now)), limit, f"{self._prefix}t:"]
        )
        return [
            DueDeadline(table_id=flat[i], at=float(flat[i + 1]), version=int(flat[i + 2]))
            for i in range(0, len(flat), 3)
        ]

    async def next_deadline(self) -> float | None:
        first = await self._redis.zrange(self._deadlines_key, 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    async def aclose(self) -> None:
        await self._redis.aclose()


# ---------------------------------------------------------------- the update pattern


async def retry_update(
    store: StateStore,
    table_id: str,
    fn: UpdateFn,
    *,
    attempts: int = 25,
) -> Versioned:
    """Read, apply ``fn``, compare-and-set; on a conflict re-read and apply ``fn`` again.

    ``fn(current)`` must be pure (it may run several times): it returns ``(new_doc, deadline)``
    with ``deadline`` a ``Deadline``, ``None`` (clear) or ``KEEP``; or ``None`` to write nothing
    (the current state is returned); or raises to refuse the change (the exception propagates,
    nothing is written). It gets the whole ``Versioned`` so it can check the version a client
    saw, or whether a claimed deadline still ``matches``.

    The first attempt starts from the state this store instance last saw (``recent``), which
    saves a read per change when one process serves the table, as it mostly does. That state
    may be stale, so only a successful compare-and-set counts: when ``fn`` writes nothing or
    refuses on it, or the write conflicts, the state is read from the store and ``fn`` decides
    again.

    Raises ``TableMissing`` when the store does not hold the table, ``StateConflict`` when every
    attempt lost. Between attempts on read states it waits a short random, growing time, so
    racing writers spread out instead of colliding again in lockstep.
    """
    current = store.recent(table_id)
    for attempt in range(attempts):
        remembered = current is not None
        if current is None:
            current = await store.get(table_id)
            if current is None:
                raise TableMissing(table_id)
        try:
            change = fn(current)
        except Exception:
            if not remembered:
                raise
            current = None  # refused on a state that may be stale: ask the one stored
            continue
        if change is None:
            if not remembered:
                return current
            current = None
            continue
        new_doc, deadline = change
        written = await store.compare_and_set(
            table_id, expected_version=current.version, doc=new_doc, deadline=deadline
        )
        if written is not None:
            return written
        current = None
        if not remembered:
            await asyncio.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
    raise StateConflict(f"table {table_id}: {attempts} attempts lost to concurrent writes")


# ---------------------------------------------------------------- factory

_memory_store: MemoryStateStore | None = None
_memory_lock = threading.Lock()
# One Redis store per event loop and (url, prefix): a redis.asyncio pool must not cross loops.
_redis_stores: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str], RedisStateStore]
] = weakref.WeakKeyDictionary()


def get_state_store() -> StateStore:
    """The store for this process: Redis when ``settings.REDIS_URL`` is set, else one shared memory store.

    The key prefix is ``settings.LIVE_STATE_PREFIX`` when defined (default ``svara:live:``).
    Called inside a running event loop, the Redis store is cached for that loop; called outside
    one, it returns a new store the caller must ``aclose``.
    """
    from django.conf import settings

    url: str = getattr(settings, "REDIS_URL", "") or ""
    if not url:
        return _memory_singleton()
    prefix: str = getattr(settings, "LIVE_STATE_PREFIX", DEFAULT_PREFIX)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return RedisStateStore.from_url(url, prefix=prefix)
    per_loop = _redis_stores.setdefault(loop, {})
    store = per_loop.get((url, prefix))
    if store is None:
        store = per_loop[(url, prefix)] = RedisStateStore.from_url(url, prefix=prefix)
    return store


def _memory_singleton() -> MemoryStateStore:
    global _memory_store
    with _memory_lock:
        if _memory_store is None:
            _memory_store = MemoryStateStore()
        return _memory_store
