"""One table worker at a time: a lease in Redis that the worker holds and renews.

Two workers would each be safe (every deadline is claimed by one process, and each handler checks
the state inside the compare-and-set), but each would also run the sweep, number hands the other
then deals, and double the database work of play. So a second ``run_table_clock`` waits as a
standby: it takes the lease, and starts its clock, only when the worker holding it has stopped
renewing it (it died, or was stopped for an upgrade). A worker that finds its lease gone (Redis
was flushed, or it stalled past the lease) takes it again if it is free, else stops its clock.
"""

from __future__ import annotations

import os
import secrets
import socket
from typing import Final

import redis.asyncio as aioredis

LEASE_SECONDS: Final = float(os.environ.get("WORKER_LEASE_SECONDS", "15"))

# Renew or release only the lease this holder holds: GET and PEXPIRE/DEL in one step.
_RENEW_LUA: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE_LUA: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class WorkerLease:
    def __init__(self, client: aioredis.Redis, *, key: str, seconds: float = LEASE_SECONDS) -> None:
        self._redis = client
        self.key = key
        self.seconds = seconds
        # Who holds it, for the standby's log line: the machine, the process, and a random part so
        # a restarted process with the same pid is a new holder.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._renew = client.register_script(_RENEW_LUA)
        self._release = client.register_script(_RELEASE_LUA)

    @classmethod
    def from_url(cls, url: str, *, prefix: str, seconds: float = LEASE_SECONDS) -> WorkerLease:
        return cls(
            aioredis.Redis.from_url(url, decode_responses=True), key=f"{prefix}worker", seconds=seconds
        )

    async def acquire(self) -> bool:
        """Take the lease if nobody holds it (or this holder does: then it is renewed)."""
        ms = int(self.seconds * 1000)
        if await self._redis.set(self.key, self.holder, nx=True, px=ms):
            return True
        return await self.renew()

    async def renew(self) -> bool:
        """Keep the lease for another ``seconds``; False when this holder no longer has it."""
        return bool(await self._renew(keys=[self.key], args=[self.holder, int(self.seconds * 1000)]))

    async def release(self) -> None:
        await self._release(keys=[self.key], args=[self.holder])

    async def held_by(self) -> str | None:
        return await self._redis.get(self.key)

    async def aclose(self) -> None:
        await self._redis.aclose()
