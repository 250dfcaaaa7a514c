"""The two relays of bench/relay.py, served by real Daphne processes on the real Redis."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path

import pytest
import websockets
from channels.consumer import AsyncConsumer

from bench import harness as procs
from bench import load, relay
from games.tables.dispatch import DirectDispatch

VERSION = re.compile(r'data-version="(\d+)"')


async def _one_move(ws_base: str, origin: str) -> list[str]:
    """Both seats of a relay table connect; seat 0 moves; the frames each seat then receives."""
    url = ws_base + "/ws/relay/7/{seat}/"
    seats = [await websockets.connect(url.format(seat=s), origin=origin) for s in (0, 1)]
    try:
        for ws in seats:
            assert VERSION.search(await asyncio.wait_for(ws.recv(), 10)).group(1) == "0"
        await seats[0].send(json.dumps({"verb": "call", "version": "0"}))
        return [await asyncio.wait_for(ws.recv(), 10) for ws in seats]
    finally:
        for ws in seats:
            await ws.close()


@pytest.mark.parametrize("app", ["relay", "stock-relay"])
def test_each_relay_forwards_a_move_to_both_seats(app: str, redis_url: str, tmp_path: Path) -> None:
    env = procs.server_env(
        database_url="sqlite:///unused", redis_url=redis_url, prefix=f"svara:test:{uuid.uuid4().hex}:"
    )
    env["DJANGO_SETTINGS_MODULE"] = load.SETTINGS[app]
    with procs.servers(1, env=env, log_dir=tmp_path, app=load.APPLICATIONS[app]) as (server,):
        frames = asyncio.run(_one_move(server.ws_base, server.origin))
    assert [VERSION.search(frame).group(1) for frame in frames] == ["1", "1"]
    # Version 1 is seat 1's turn: only its frame has the move buttons.
    assert ["verb-call" in frame for frame in frames] == [False, True]


def test_the_stock_relay_is_the_stack_as_it_comes() -> None:
    from bench import settings_stock_relay

    assert relay.StockRelayConsumer.dispatch is AsyncConsumer.dispatch
    assert relay.RelayConsumer.dispatch is DirectDispatch.dispatch
    layer = settings_stock_relay.CHANNEL_LAYERS["default"]
    assert layer["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert set(layer["CONFIG"]) == {"hosts", "prefix"}  # channels-redis's defaults otherwise
