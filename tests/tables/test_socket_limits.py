"""A socket's message budget (games/tables/socket_limits.py), on a clock the test moves."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.tables.socket_limits import MessageBudget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_refused_then_refilled_with_time() -> None:
    clock = Clock()
    budget = MessageBudget(burst=3, per_second=2.0, clock=clock)
    assert [budget.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5  # one token back
    assert budget.take() is True
    assert budget.take() is False
    clock.now += 60  # never more than the burst
    assert sum(budget.take() for _ in range(10)) == 3


@given(st.lists(st.floats(min_value=0, max_value=5, allow_nan=False), max_size=60))
def test_never_more_than_the_burst_plus_the_refill_over_any_run(gaps: list[float]) -> None:
    clock = Clock()
    budget = MessageBudget(burst=5, per_second=1.5, clock=clock)
    taken = 0
    for gap in gaps:
        clock.now += gap
        taken += budget.take()
    assert taken <= 5 + 1.5 * sum(gaps) + 1e-9
