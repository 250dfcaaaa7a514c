"""Process-wide settings of a serving process (Daphne), applied once its application is loaded."""

from __future__ import annotations

import gc
from typing import Final

# Collections of the middle generation between two full ones; CPython's default is 10.
FULL_COLLECTION_EVERY: Final = 100


def tune_garbage_collector() -> int:
    """Keep the garbage collector's pauses short and rare; the number of objects frozen.

    A full collection walks every tracked object and stops the event loop meanwhile. Measured
    with bench/load.py (200 tables, one process, paced), they were the p99: every ~5 s a pause
    of 100-140 ms, and every action in flight was late by it.

    - Most of a server's objects are what startup loaded (modules, settings, URL patterns,
      translations) and live as long as the process: frozen, a full collection no longer walks
      them, and walks only what the tables and sockets made since (about 85,000 objects at 400
      sockets): pauses of 25-50 ms. What is frozen is never freed, so it is done once, after a
      collection, while the process holds only what it will keep.
    - The table documents live about a second, long enough to reach the oldest generation, so
      the default made a full collection every few seconds. One in ten as often: paced p99
      23-30 ms against 49-95 ms in alternating runs. The cycles freed per full collection are a
      few hundred objects, so holding them ten times as long costs little memory.
    """
    gc.collect()
    gc.freeze()
    young, middle, _oldest = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    return gc.get_freeze_count()
