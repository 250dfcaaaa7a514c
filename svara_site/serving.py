"""Process-wide settings of a serving process (Daphne), applied once its application is loaded."""

from __future__ import annotations

import gc


def freeze_startup_objects() -> int:
    """Move every object alive after startup out of the garbage collector's reach; their count.

    A full collection walks every tracked object, and most of a server's are the modules,
    settings, URL patterns and translations loaded at startup, which live as long as the
    process. bench/load.py (200 tables, one process) saw full collections every ~5 s stop the
    event loop for 100-140 ms each, and every action in flight then was late: they were the
    paced p99. Frozen, a full collection walks what the tables and sockets made since (about
    85,000 objects at 400 sockets) and pauses about a third as long. Garbage made after the
    freeze is collected as before; what is frozen is never freed, so it is done once, after a
    collection, while the process holds only what it will keep.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
