"""The friendship state machine, every order of requests, answers, removals and blocks among four
players (hypothesis, stateful), against a model of what each step should do. After every step:
a friendship is the same seen from either side, nobody is friends with (or has a request to or
from) a player one of them blocks, friends have no request pending between them, and the database
says what the model says."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from games.models import Friendship, Ignore
from games.social import friends
from games.social.friends import FriendRefused
from games.social.ignores import ignore_player, unignore_player
from tests.live.tablekit import make_player

pytestmark = pytest.mark.django_db

PLAYERS = 4
SEEN = {"done": 0, "refused": 0, "friendships": 0}  # what the runs explored, all examples together
who = st.integers(min_value=0, max_value=PLAYERS - 1)


class FriendsMachine(RuleBasedStateMachine):
    people: list = []

    @initialize()
    def start(self) -> None:
        Friendship.objects.all().delete()
        Ignore.objects.all().delete()
        self.pending: dict[frozenset[int], int] = {}  # pair -> who asked
        self.friends: set[frozenset[int]] = set()
        self.blocks: set[tuple[int, int]] = set()  # (blocker, blocked)

    def _do(self, expected_ok: bool, step) -> None:
        try:
            step()
        except FriendRefused:
            assert not expected_ok, "refused a step the model allows"
            SEEN["refused"] += 1
        else:
            assert expected_ok, "did a step the model refuses"
            SEEN["done"] += 1

    @rule(a=who, b=who)
    def request(self, a: int, b: int) -> None:
        pair = frozenset((a, b))
        ok = (
            a != b
            and (a, b) not in self.blocks
            and (b, a) not in self.blocks
            and pair not in self.friends
            and self.pending.get(pair) != a
        )
        self._do(ok, lambda: friends.send_request(user=self.people[a], to=self.people[b]))
        if ok:
            if self.pending.get(pair) == b:  # b had asked: accepted
                del self.pending[pair]
                self.friends.add(pair)
            else:
                self.pending[pair] = a

    @rule(a=who, b=who)
    def accept(self, a: int, b: int) -> None:
        pair = frozenset((a, b))
        ok = a != b and self.pending.get(pair) == b
        self._do(ok, lambda: friends.accept(user=self.people[a], requester=self.people[b]))
        if ok:
            del self.pending[pair]
            self.friends.add(pair)

    @rule(data=st.data())
    def answer_a_waiting_request(self, data) -> None:
        """Accept one of the requests waiting (random pairs rarely meet one)."""
        if not self.pending:
            return
        pair = data.draw(st.sampled_from(sorted(self.pending, key=sorted)))
        asker = self.pending[pair]
        (other,) = pair - {asker}
        self.accept(other, asker)

    @rule(a=who, b=who)
    def decline(self, a: int, b: int) -> None:
        pair = frozenset((a, b))
        ok = a != b and self.pending.get(pair) == b
        self._do(ok, lambda: friends.decline(user=self.people[a], requester=self.people[b]))
        if ok:
            del self.pending[pair]

    @rule(a=who, b=who)
    def cancel(self, a: int, b: int) -> None:
        pair = frozenset((a, b))
        ok = a != b and self.pending.get(pair) == a
        self._do(ok, lambda: friends.cancel(user=self.people[a], to=self.people[b]))
        if ok:
            del self.pending[pair]

    @rule(a=who, b=who)
    def remove(self, a: int, b: int) -> None:
        pair = frozenset((a, b))
        ok = a != b and pair in self.friends
        self._do(ok, lambda: friends.remove(user=self.people[a], friend=self.people[b]))
        if ok:
            self.friends.discard(pair)

    @rule(a=who, b=who)
    def block(self, a: int, b: int) -> None:
        if a == b:
            return  # the ignore list refuses oneself (tests/social/test_ignores.py)
        ignore_player(user=self.people[a], ignored=self.people[b])
        pair = frozenset((a, b))
        self.blocks.add((a, b))
        self.pending.pop(pair, None)
        self.friends.discard(pair)

    @rule(a=who, b=who)
    def unblock(self, a: int, b: int) -> None:
        unignore_player(user=self.people[a], ignored=self.people[b])
        self.blocks.discard((a, b))

    @invariant()
    def the_database_keeps_the_promises(self) -> None:
        if not hasattr(self, "pending"):
            return
        index = {person.pk: i for i, person in enumerate(self.people)}
        rows = list(Friendship.objects.all())
        pairs = {r.pk: frozenset((index[r.low_id], index[r.high_id])) for r in rows}
        stored_friends = {pairs[r.pk] for r in rows if r.status == Friendship.Status.FRIENDS}
        stored_pending = {
            pairs[r.pk]: index[r.requested_by_id] for r in rows if r.status == Friendship.Status.PENDING
        }
        blocks = {(index[u], index[i]) for u, i in Ignore.objects.values_list("user_id", "ignored_id")}
        for a, b in itertools.combinations(range(PLAYERS), 2):
            pa, pb = self.people[a], self.people[b]
            # Symmetric: a friend of b is b's friend; a request is sent by one and waits on the other.
            rel_ab, rel_ba = friends.relation(user=pa, other=pb), friends.relation(user=pb, other=pa)
            assert {rel_ab, rel_ba} in ({""}, {"friends"}, {"asked", "asking"})
        for blocker, blocked in blocks:
            pair = frozenset((blocker, blocked))
            assert pair not in stored_friends and pair not in stored_pending
        assert not set(stored_pending) & stored_friends  # no request between friends
        assert len(rows) == len(stored_friends) + len(stored_pending)  # one row a pair
        assert (stored_friends, stored_pending, blocks) == (self.friends, self.pending, self.blocks)
        SEEN["friendships"] += len(stored_friends)


def test_every_order_of_friend_steps_keeps_the_promises(monkeypatch) -> None:
    # The limits are tested on their own (test_friends.py); here every example shares one count.
    monkeypatch.setattr(friends, "REQUEST_LIMIT", 10**9)
    FriendsMachine.people = [make_player(f"p{i}") for i in range(PLAYERS)]
    FriendsMachine.TestCase.settings = settings(
        max_examples=20,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    run_state_machine_as_test(FriendsMachine, settings=FriendsMachine.TestCase.settings)
    # The runs made friends, and the model allowed and refused steps: a machine that only ever
    # refused would check nothing.
    assert SEEN["done"] and SEEN["refused"] and SEEN["friendships"], SEEN
