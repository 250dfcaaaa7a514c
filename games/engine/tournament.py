"""Sit-and-go tournaments as numbers (RULES.md §8): the formats, the level clock's stakes, the places
and the prizes. Pure Python like the rest of the engine, so the room, the benchmarks and the tests
ask one place, and a rule of §8 is one edit here plus a test.

What §8 leaves open, and what this module chose (docs/engine.md, "Tournaments"):

* "+50 % a level, rounded to a multiple of 100": to the nearest multiple, a half rounding up
  (3,000 -> 4,500 -> 6,800 -> 10,200).
* "equal stacks share their places' prizes equally (a remainder chip to the higher place)": players
  who share places are equal, so the remainder's chips go one each to them in the order the caller
  gives (the room passes seat order), which is fixed before the hand and known to everyone.
* "the pool is shared in proportion to the chips each player still holds": each share is rounded
  down and the chips left over go one each to the largest remainders, more chips first, then the
  caller's order: the shares always sum to the pool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Speed = Literal["regular", "turbo"]

STARTING_CHIPS = 1500
SEATS: tuple[int, ...] = (2, 6)
BUY_INS: tuple[int, ...] = (100, 500, 2000)
LEVEL_SECONDS: dict[str, int] = {"regular": 10 * 60, "turbo": 5 * 60}
# The stakes of §8's first sixteen levels; later levels grow by half, rounded to 100.
FIRST_STAKES: tuple[int, ...] = (
    10, 15, 25, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000,
)  # fmt: skip
# The share of the pool each paid place takes, in percent, by the number of seats; first place
# takes what rounding down leaves of the others (§8 "Prizes").
PAID_PERCENT: dict[int, tuple[int, ...]] = {2: (100,), 6: (65, 35)}


class TournamentError(ValueError):
    """A format §8 does not offer, or numbers that cannot be a tournament; one line for a person."""


@dataclass(frozen=True, slots=True)
class SitAndGo:
    """One of the sit-and-gos the room offers: seats, speed and buy-in."""

    seats: int
    speed: Speed
    buy_in: int

    def __post_init__(self) -> None:
        if self.seats not in SEATS:
            raise TournamentError(f"a sit-and-go has 2 or 6 seats, not {self.seats!r}")
        if self.speed not in LEVEL_SECONDS:
            raise TournamentError(f"a sit-and-go is regular or turbo, not {self.speed!r}")
        if self.buy_in not in BUY_INS:
            offered = ", ".join(map(str, BUY_INS))
            raise TournamentError(f"the buy-ins are {offered} chips, not {self.buy_in!r}")

    @property
    def level_seconds(self) -> int:
        return LEVEL_SECONDS[self.speed]

    @property
    def key(self) -> str:
        """A stable name for the format (``6-turbo-500``): URLs, metrics and the lobby use it."""
        return f"{self.seats}-{self.speed}-{self.buy_in}"

    @classmethod
    def from_key(cls, key: object) -> SitAndGo:
        if not isinstance(key, str) or key.count("-") != 2:
            raise TournamentError(f"unknown sit-and-go {key!r}")
        seats, speed, buy_in = key.split("-")
        if not (seats.isdigit() and buy_in.isdigit()):
            raise TournamentError(f"unknown sit-and-go {key!r}")
        return cls(seats=int(seats), speed=speed, buy_in=int(buy_in))  # type: ignore[arg-type]

    def prizes(self) -> tuple[int, ...]:
        """What each paid place takes of a full pool, first place first."""
        return prize_amounts(pool=self.seats * self.buy_in, seats=self.seats)


# Every sit-and-go the room keeps open, in the lobby's order.
FORMATS: tuple[SitAndGo, ...] = tuple(
    SitAndGo(seats=seats, speed=speed, buy_in=buy_in)
    for seats in SEATS
    for speed in ("regular", "turbo")
    for buy_in in BUY_INS
)


def stake_at_level(level: int) -> int:
    """The stake S of a level, counted from 1 (§8 "Levels")."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        raise TournamentError(f"levels are counted from 1, not {level!r}")
    if level <= len(FIRST_STAKES):
        return FIRST_STAKES[level - 1]
    stake = FIRST_STAKES[-1]
    for _ in range(level - len(FIRST_STAKES)):
        stake = (stake * 3 + 100) // 200 * 100  # 1.5 x stake to the nearest 100, halves up
    return stake


def level_at(*, elapsed_seconds: float, level_seconds: int) -> int:
    """The level in force ``elapsed_seconds`` after the start (a new level starts on the boundary)."""
    if elapsed_seconds < 0:
        raise TournamentError("a tournament's clock does not run backwards")
    return 1 + int(elapsed_seconds // level_seconds)


def prize_amounts(*, pool: int, seats: int) -> tuple[int, ...]:
    """The paid places' prizes of ``pool``, first first; rounding down leaves the rest to first."""
    if seats not in PAID_PERCENT:
        raise TournamentError(f"a sit-and-go has 2 or 6 seats, not {seats!r}")
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
        raise TournamentError("a prize pool is a whole number of chips, at least 0")
    later = tuple(pool * percent // 100 for percent in PAID_PERCENT[seats][1:])
    return (pool - sum(later), *later)


@dataclass(frozen=True, slots=True)
class Out:
    """A player who went out: in which hand, and with how many chips they began it."""

    player: str
    hand: int
    began_with: int


def places(*, outs: Sequence[Out], winner: str) -> list[list[str]]:
    """The players grouped by place, best first: the winner, then the reverse order of going out;
    of players out in one hand, more chips at its start places higher and equal stacks share
    (each group holds the places from its position on, as many as it has players)."""
    groups: list[list[str]] = [[winner]]
    by_hand = sorted({out.hand for out in outs}, reverse=True)
    seen = {winner}
    for hand in by_hand:
        stacks = sorted({out.began_with for out in outs if out.hand == hand}, reverse=True)
        for stack in stacks:
            group = [out.player for out in outs if out.hand == hand and out.began_with == stack]
            if seen.intersection(group) or len(set(group)) != len(group):
                raise TournamentError("a player cannot go out twice or win after going out")
            seen.update(group)
            groups.append(group)
    return groups


def prizes_by_place(*, groups: Sequence[Sequence[str]], pool: int, seats: int) -> dict[str, int]:
    """Each player's prize (0 for the unpaid): a group shares its places' prizes equally, the
    remainder's chips one each to its players in the order given."""
    paid = prize_amounts(pool=pool, seats=seats)
    prizes: dict[str, int] = {}
    place = 0
    for group in groups:
        total = sum(paid[place : place + len(group)])
        share, extra = divmod(total, len(group))
        for index, player in enumerate(group):
            prizes[player] = share + (1 if index < extra else 0)
        place += len(group)
    return prizes


def cancellation_shares(*, pool: int, chips: Mapping[str, int]) -> dict[str, int]:
    """A cancelled tournament's pool shared in proportion to the chips each player holds (§8):
    rounded down, the chips left over one each to the largest remainders (more chips first, then
    the order given). A player holding nothing gets nothing; the shares sum to the pool."""
    total = sum(chips.values())
    if total <= 0 or any(held < 0 for held in chips.values()):
        raise TournamentError("a started tournament has chips in play, none negative")
    shares = {player: pool * held // total for player, held in chips.items()}
    order = sorted(
        (player for player, held in chips.items() if held > 0),
        key=lambda player: (-(pool * chips[player] % total), -chips[player]),
    )
    for player in order[: pool - sum(shares.values())]:
        shares[player] += 1
    return shares


def gone_out(*, hand: int, began: Mapping[str, int], ended: Mapping[str, int]) -> list[Out]:
    """The players a hand put out (§8 "Going out"): dealt in with chips, none left at its end."""
    return [
        Out(player=player, hand=hand, began_with=chips)
        for player, chips in began.items()
        if chips > 0 and ended.get(player, 0) == 0
    ]
