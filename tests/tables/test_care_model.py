"""A stateful model of one socket's play-time warnings (games/tables/care.py, issue 36): time
passes, the player's hands start and end (the socket reads the time left again), the socket asks
for its warning at any moment. Invariants: the time left it works out is the true one; each
warning is said once, in order (5 minutes, then 1), only when due; the one due now has been said;
the socket's next wake is never in the past and never after the next warning's moment."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from accounts.services.responsible import play_time_warning
from games.live.records import PlayTimeLeft
from games.tables.care import CareFacts, TableCare

START = datetime(2026, 12, 7, 12, 0)


class PlayTimeWarnings(RuleBasedStateMachine):
    @initialize(left_seconds=st.integers(min_value=-60, max_value=20 * 60), running=st.booleans())
    def begin(self, left_seconds: int, running: bool) -> None:
        self.now = START
        self.left = timedelta(seconds=left_seconds)  # the truth
        self.running = running
        self.said: list[int] = []
        self.care = TableCare(facts=self._facts())

    def _facts(self) -> CareFacts:
        return CareFacts(
            interval=0,
            start=None,
            checked=None,
            left=PlayTimeLeft(left=self.left, running=self.running),
            read_at=self.now,
        )

    @rule(seconds=st.integers(min_value=0, max_value=400))
    def time_passes(self, seconds: int) -> None:
        step = timedelta(seconds=seconds)
        self.now += step
        if self.running:
            self.left -= step

    @rule()
    def a_hand_starts_or_ends(self) -> None:
        self.running = not self.running
        self.care.facts = self._facts()  # the socket reads the time left again

    @rule()
    def a_frame(self) -> None:
        text = self.care.new_warning(self.now)
        due = play_time_warning(left=self.left)
        if text is None:
            return
        assert due is not None, "a warning said with more than 5 minutes left, or none"
        assert f"{due} minute" in text
        self.said.append(due)

    @invariant()
    def the_time_left_is_the_true_one(self) -> None:
        assert self.care.left_now(self.now) == self.left

    @invariant()
    def each_warning_once_and_in_order(self) -> None:
        assert self.said == sorted(set(self.said), reverse=True)

    @invariant()
    def the_wake_is_ahead_and_not_after_the_next_warning(self) -> None:
        wake = self.care.wake_at(self.now)
        if wake is not None:
            assert wake > self.now
        if self.running:
            for minutes in (5, 1, 0):
                moment = self.now + self.left - timedelta(minutes=minutes)
                if moment > self.now:
                    assert wake is not None and wake <= moment
                    break


TestPlayTimeWarnings = PlayTimeWarnings.TestCase
TestPlayTimeWarnings.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


def test_the_warning_due_now_has_been_said_after_a_frame() -> None:
    care = TableCare(
        facts=CareFacts(
            interval=0, start=None, checked=None, left=PlayTimeLeft(timedelta(minutes=3), True), read_at=START
        )
    )
    assert care.new_warning(START) is not None
    assert care.new_warning(START + timedelta(seconds=30)) is None  # still 5: said
    assert "1 minute" in (care.new_warning(START + timedelta(minutes=2)) or "")
    assert care.new_warning(START + timedelta(minutes=2, seconds=30)) is None
