"""A room's stored hands, built as the table service stores them (a hand, its winner, a row per
player with the chips before and after), for the staff's patterns and dashboard tests.

``play_room`` seats honest players at random tables each round and lets a random player win each
hand; two colluders always sit at the same table, and one of them passes chips to the other: he
never wins against his partner, and when the partner wins he pays five stakes instead of one.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import User
from accounts.services import grant_signup_bonus
from games.models import HandPlayer, PlayedHand, Table

_names = itertools.count(1)


def person(name: str, *, joined_days_ago: float = 60, granted: bool = True) -> User:
    user = User.objects.create_user(username=f"{name}{next(_names)}", password=None)
    if granted:
        grant_signup_bonus(user=user)
    User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - timedelta(days=joined_days_ago))
    return User.objects.get(pk=user.pk)


@dataclass
class Hands:
    """Builds hands in bulk: ``deal`` queues one, ``save`` writes them all (two statements)."""

    hands: list[PlayedHand] = field(default_factory=list)
    rows: list[list[HandPlayer]] = field(default_factory=list)
    numbers: dict[int, int] = field(default_factory=dict)

    def deal(
        self,
        table: Table,
        changes: dict[User, int],
        *,
        at: datetime,
        status: str = PlayedHand.Status.FINISHED,
    ) -> None:
        """One hand: each player's chips won (+) or lost (-); the one who won most is the winner."""
        assert sum(changes.values()) == 0, changes
        number = self.numbers[table.pk] = self.numbers.get(table.pk, 0) + 1
        winner = max(changes, key=lambda user: changes[user])
        self.hands.append(
            PlayedHand(
                table=table,
                number=number,
                status=status,
                started_at=at,
                ended_at=None if status == PlayedHand.Status.IN_PLAY else at + timedelta(seconds=40),
                server_seed_hash="h" * 64,
                server_seed="s" * 64,
                pot=sum(c for c in changes.values() if c > 0),
                winner=winner if status == PlayedHand.Status.FINISHED else None,
            )
        )
        self.rows.append(
            [
                HandPlayer(
                    user=user,
                    position=i,
                    chips_before=10_000,
                    chips_after=10_000 + change,
                    won=status == PlayedHand.Status.FINISHED and user == winner,
                )
                for i, (user, change) in enumerate(changes.items())
            ]
        )

    def save(self) -> None:
        made = PlayedHand.objects.bulk_create(self.hands)
        for hand, rows in zip(made, self.rows, strict=True):
            for row in rows:
                row.hand = hand
                row.started_at, row.hand_status = hand.started_at, hand.status
        HandPlayer.objects.bulk_create([row for rows in self.rows for row in rows])
        self.hands, self.rows = [], []


def pot_to(
    winner: User, players: list[User], stake: int, *, paid: dict[User, int] | None = None
) -> dict[User, int]:
    """Each loser pays a stake (or what ``paid`` says); the winner takes it all."""
    changes = {user: -(paid or {}).get(user, stake) for user in players if user != winner}
    return {winner: -sum(changes.values()), **changes}


@dataclass
class Room:
    honest: list[User]
    dumper: User  # passes chips on
    partner: User  # takes them
    tables: list[Table]
    hands: int


def play_room(
    *,
    seed: int,
    honest: int = 12,
    tables: int = 4,
    seats: int = 3,
    rounds: int = 30,
    hands_per_round: int = 4,
    stake: int = 50,
    hours_ago: float = 24,
) -> Room:
    rng = random.Random(seed)
    people = [person("fair") for _ in range(honest)]
    dumper, partner = person("dumper"), person("partner")
    boards = [Table.objects.create(name=f"t{i}", stake=stake, seat_count=seats) for i in range(tables)]
    built = Hands()
    start = timezone.now() - timedelta(hours=hours_ago)
    count = 0
    for round_number in range(rounds):
        order = list(boards)
        rng.shuffle(order)
        theirs, others = order[0], order[1:]
        sitting = rng.sample(people, k=min(len(people), seats * len(others) + seats - 2))
        lineups = {theirs.pk: [dumper, partner, *sitting[: seats - 2]]}
        rest = sitting[seats - 2 :]
        for i, board in enumerate(others):
            lineups[board.pk] = rest[i * seats : (i + 1) * seats]
        for hand in range(hands_per_round):
            at = start + timedelta(minutes=round_number * 10 + hand)
            for board in boards:
                players = lineups[board.pk]
                if len(players) < 2:
                    continue
                if board is theirs:
                    winner = rng.choice([p for p in players if p != dumper])  # he never wins
                    paid = {dumper: 5 * stake} if winner == partner else None
                else:
                    winner, paid = rng.choice(players), None
                built.deal(board, pot_to(winner, players, stake, paid=paid), at=at)
                count += 1
    built.save()
    return Room(honest=people, dumper=dumper, partner=partner, tables=boards, hands=count)
