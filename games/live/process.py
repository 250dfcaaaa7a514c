"""What this process is and what time it is: the two facts of the process that every table command reads.

The time is the server's (one source for every deadline a command sets and every deadline the
clock fires); tests put a clock of their own in its place (``time_source``) to run a table's
timers without waiting for them. The table worker is the one process that fires the deadlines and
settles the hands of every serving process under ``LIVE_TABLE_WORKER`` (``manage.py run_table_clock``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings

_time: Callable[[], float] = time.time
_worker = False


def now() -> float:
    """Seconds since the epoch, by this process's time source."""
    return _time()


@contextmanager
def time_source(source: Callable[[], float]) -> Iterator[None]:
    """Inside, ``now()`` (and with it every command and the turn clock) reads ``source``."""
    global _time
    before, _time = _time, source
    try:
        yield
    finally:
        _time = before


def become_table_worker() -> None:
    """This process fires the deadlines and settles the hands of every serving process."""
    global _worker
    _worker = True


def clock_runs_elsewhere() -> bool:
    """True in a serving process under ``LIVE_TABLE_WORKER``: the worker runs the clock."""
    return bool(settings.LIVE_TABLE_WORKER) and not _worker
