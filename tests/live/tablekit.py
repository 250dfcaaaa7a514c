"""Helpers for table tests: users with chips, a table, WebSocket clients that read fragments."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.services import grant_signup_bonus
from games.models import Table
from svara_site.asgi import application

VERSION_RE = re.compile(r'id="table-version"[^>]*data-version="(\d+)"[^>]*data-epoch="([0-9a-f]*)"')
ERROR_RE = re.compile(r'<p class="error">(.*?)</p>', re.S)


def make_player(name: str):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=name, password="pw-for-tests-1")
    grant_signup_bonus(user=user)
    return user


def make_table(**fields) -> Table:
    defaults = {"name": "test", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
    return Table.objects.create(**{**defaults, **fields})


def session_cookie(user) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


@dataclass
class Viewer:
    """A connected socket and everything it received."""

    comm: WebsocketCommunicator
    frames: list[str] = field(default_factory=list)
    counter: int = 0

    @property
    def last(self) -> str:
        return self.frames[-1]

    @property
    def version(self) -> tuple[int, str]:
        match = VERSION_RE.search(self.last)
        assert match, self.last[:300]
        return int(match.group(1)), match.group(2)

    async def receive(self, timeout: float = 3) -> str:
        frame = await self.comm.receive_from(timeout=timeout)
        self.frames.append(frame)
        return frame

    async def until(self, predicate, timeout: float = 5) -> str:
        """Receive frames until one satisfies ``predicate`` (the last frame already counts)."""
        if self.frames and predicate(self.last):
            return self.last
        while True:
            frame = await self.receive(timeout=timeout)
            if predicate(frame):
                return frame

    async def drain(self, timeout: float = 0.3) -> None:
        while not await self.comm.receive_nothing(timeout=timeout):
            await self.receive()

    async def send(self, **fields) -> None:
        await self.comm.send_to(text_data=json.dumps({**fields, "HEADERS": {"HX-Request": "true"}}))

    async def act(self, verb: str, amount: int | None = None, **extra) -> str:
        """Send a move stamped with the version this socket last saw and a fresh action id."""
        await self.drain()
        version, epoch = self.version
        self.counter += 1
        fields = {
            "verb": verb,
            "version": str(version),
            "epoch": epoch,
            "action_id": f"a{id(self)}-{self.counter}",
        }
        if amount is not None:
            fields["amount"] = str(amount)
        await self.send(**{**fields, **extra})
        return await self.receive()

    def error(self) -> str | None:
        match = ERROR_RE.search(self.last)
        return match.group(1) if match else None


async def connect(user, table_id: int, *, origin: bytes = b"http://127.0.0.1:8000") -> Viewer:
    cookie = await sync_to_async(session_cookie)(user)
    comm = WebsocketCommunicator(
        application, f"/ws/table/{table_id}/", headers=[(b"origin", origin), (b"host", b"127.0.0.1"), cookie]
    )
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    viewer = Viewer(comm)
    await viewer.receive()
    return viewer
