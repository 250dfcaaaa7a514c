"""One render of the lobby's list per change, filter, page and language, shared by the process's
lobby sockets: a seat taken anywhere reaches every lobby socket, and rendering the list once for
each of them cost as many renders (and queries) as there were people looking at the lobby."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from weakref import WeakKeyDictionary

# Past this many kept renders the finished ones are dropped (a socket can ask for any page number).
MAX_KEPT = 64


class SharedRenders:
    """The latest render of each key, reused by whoever asks for one begun after a given moment.

    A socket told of a change asks for a render begun after it heard of the change: the first one
    to ask starts it, the others (told at nearly the same moment) await that same render. Kept per
    event loop, since a task belongs to the loop that made it.
    """

    def __init__(self, render: Callable[[Hashable], Awaitable[str]]) -> None:
        self._render = render
        self._latest: WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[Hashable, tuple[float, asyncio.Task[str]]]
        ]
        self._latest = WeakKeyDictionary()

    async def get(self, key: Hashable, *, begun_after: float) -> str:
        loop = asyncio.get_running_loop()
        renders = self._latest.setdefault(loop, {})
        kept = renders.get(key)
        if kept is None or kept[0] < begun_after or _failed(kept[1]):
            if len(renders) >= MAX_KEPT:
                for old in [k for k, (_, task) in renders.items() if task.done()]:
                    del renders[old]
            kept = (now(), loop.create_task(self._render(key)))
            renders[key] = kept
        # A socket closing while it waits must not cancel the render the others wait for.
        return await asyncio.shield(kept[1])


def _failed(task: asyncio.Task[str]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def now() -> float:
    return time.monotonic()
