"""The rules of the game as one frozen, versioned value (RULES.md §3-§4).

Every number RULES.md gives the hand (the smallest raise, the dark chain and its cap, the join fee,
the seats, what a seat needs to be dealt in) lives here, once, so that a rule change is one edit
to a ``Rules`` value plus a test. A hand is played under one ``Rules`` (``Hand.start(rules=...)``),
stores its version (and, in a hand file ``svara-hand/2``, the whole value), and is replayed under
its own rules, never today's: an old hand stays what it was when a rule changes.

``RULES_V1`` is the game as the site has always played it. A new set of rules is a new value with
a new version, added to ``KNOWN``; a version, once stored with a hand, never changes meaning.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


class RulesError(ValueError):
    """Rules that cannot be played, or a version this engine does not know; one line for a person."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The numbers of the game; amounts are counted in stakes (S)."""

    version: int
    # The stakes a table may have (RULES.md §3); the engine itself plays any positive stake.
    stakes: tuple[int, ...] = (10, 50, 200, 1000)
    min_seats: int = 2
    max_seats: int = 6
    # A seat with fewer than this many stakes is not dealt in (RULES.md §3).
    deal_in_stakes: int = 2
    # The smallest raise is to T + raise_step x S (RULES.md §4 step 4).
    raise_step: int = 1
    # The dark chain (RULES.md §4 step 2): the first dark bet is dark_first x S, each later one
    # dark_growth times the one before; a dark bet X is offered only while dark_cap x X is within
    # the cap (the smallest "bet + chips left"): the chain's cap.
    dark_first: int = 1
    dark_growth: int = 2
    dark_cap: int = 2
    # After the dark round the stake to match is target_after_dark x the last dark bet.
    target_after_dark: int = 2
    # The svara join fee: the pot divided by join_fee_divisor, rounded up; a player may join with
    # the fee plus join_reserve_stakes x S (RULES.md §4 step 6).
    join_fee_divisor: int = 2
    join_reserve_stakes: int = 1
    # A sit-and-go (RULES.md §8): every seat with chips is dealt in, whatever its stack, and a seat
    # with fewer than S chips antes all it has. Everything else (the cap included) is §4 as written.
    short_antes: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "stakes":
                if not value or any(not _whole(s) or s <= 0 for s in value):
                    raise RulesError("stakes must be positive whole numbers")
            elif f.name == "short_antes":
                if not isinstance(value, bool):
                    raise RulesError("short_antes must be true or false")
            elif not _whole(value) or value < 1:
                raise RulesError(f"{f.name} must be a whole number of at least 1")
        if not 2 <= self.min_seats <= self.max_seats:
            raise RulesError("a table has at least 2 seats, min_seats to max_seats")
        if self.dark_growth < 2:
            raise RulesError("each dark bet must be more than the one before (dark_growth of at least 2)")

    def deal_in_chips(self, *, stake: int) -> int:
        """The fewest chips a seat needs to be dealt in: 2 S at a table (§3), any chip in a
        sit-and-go (§8)."""
        return 1 if self.short_antes else stake * self.deal_in_stakes

    def dark_bet(self, *, stake: int, count: int) -> int:
        """The dark bet after ``count`` dark bets: the chain's (count + 1)-th link."""
        return stake * self.dark_first * self.dark_growth**count

    def dark_chain(self, *, stake: int, links: int) -> tuple[int, ...]:
        """The first ``links`` dark bets at this stake: S, 2S, 4S, ... under RULES_V1."""
        return tuple(self.dark_bet(stake=stake, count=k) for k in range(links))

    def join_fee(self, *, pot: int) -> int:
        """The svara join fee: the pot divided as the rules say, rounded up."""
        return -(-pot // self.join_fee_divisor)

    def to_json(self) -> dict[str, Any]:
        """The value as a hand file writes it (``rules``); ``from_json`` gives it back."""
        data = asdict(self)
        data["stakes"] = list(self.stakes)
        return data

    @classmethod
    def from_json(cls, data: object) -> Rules:
        """Rules written by ``to_json``. A known version must say exactly what that version says:
        a file cannot play a hand under other numbers while calling them version 1."""
        if not isinstance(data, dict):
            raise RulesError("rules must be a JSON object")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise RulesError("rules need a version: a whole number of at least 1")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RulesError(f"unknown rule {unknown[0]!r}")
        values = dict(data)
        if "stakes" in values:
            if not isinstance(values["stakes"], list):
                raise RulesError("stakes must be a list of positive whole numbers")
            values["stakes"] = tuple(values["stakes"])
        try:
            rules = cls(**values)
        except TypeError as exc:
            raise RulesError(f"rules that cannot be read: {exc}") from None
        known = KNOWN.get(rules.version)
        if known is not None and known != rules:
            raise RulesError(f"these rules are not rules version {rules.version}: they differ from it")
        return known or rules  # the one value of a known version: ``hand.rules is RULES_V1`` holds


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


RULES_V1 = Rules(version=1)
# The sit-and-go's hand (RULES.md §8): the table's game with short antes.
SIT_AND_GO_V1 = Rules(version=2, short_antes=True)

# Every version a stored hand may name, by number.
KNOWN: dict[int, Rules] = {rules.version: rules for rules in (RULES_V1, SIT_AND_GO_V1)}


def rules_of_version(version: object) -> Rules:
    """The rules a stored hand names by version only (the state of a hand in play)."""
    found = KNOWN.get(version) if isinstance(version, int) and not isinstance(version, bool) else None
    if found is None:
        raise RulesError(f"unknown rules version {version!r}")
    return found
