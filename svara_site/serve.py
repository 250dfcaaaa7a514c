"""Daphne on uvloop: ``python -m svara_site.serve`` takes Daphne's own arguments.

Why: a busy table server spends much of its time in the event loop's own machinery (tasks,
futures, the Redis and Pub/Sub streams, timers), which uvloop runs in C; Twisted's asyncio
reactor, which Daphne uses, only needs ``add_reader``/``add_writer``, which uvloop has. Measured
with bench/load.py at 200 tables, one process (README, "Load benchmark").

Daphne makes its event loop when ``daphne.server`` is first imported, so the policy is set
before that import; ``SVARA_EVENT_LOOP=asyncio`` keeps the standard loop.
"""

from __future__ import annotations

import asyncio
import os
import sys


def install_loop_policy() -> str:
    """Set the event loop policy for the loops made from now on; the name of the loop chosen."""
    if os.environ.get("SVARA_EVENT_LOOP", "uvloop") == "asyncio":
        return "asyncio"
    try:
        import uvloop
    except ImportError:  # not built for this platform (Windows): requirements.txt skips it there
        return "asyncio"

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


def main() -> None:
    chosen = install_loop_policy()
    from daphne import server
    from daphne.cli import CommandLineInterface

    loop = type(server.twisted_loop)
    print(f"event loop: {chosen} ({loop.__module__}.{loop.__qualname__})", file=sys.stderr, flush=True)
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
