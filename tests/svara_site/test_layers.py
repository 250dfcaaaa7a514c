"""The channel layer's settings (svara_site/layers.py), on the real Redis."""

from __future__ import annotations

import asyncio
import uuid

from django.utils.module_loading import import_string

from svara_site.layers import channel_layers


def _layer(*, redis_url: str, state_prefix: str, kind: str):
    """A layer as a process with these settings makes it."""
    config = channel_layers(redis_url=redis_url, state_prefix=state_prefix, kind=kind)["default"]
    return import_string(config["BACKEND"])(**config["CONFIG"])


async def _rooms_on_one_redis_hear_only_their_own(redis_url: str, kind: str) -> None:
    mine, other = f"svara:test:{uuid.uuid4().hex}:", f"svara:test:{uuid.uuid4().hex}:"
    listener = _layer(redis_url=redis_url, state_prefix=mine, kind=kind)
    stranger = _layer(redis_url=redis_url, state_prefix=other, kind=kind)
    neighbour = _layer(redis_url=redis_url, state_prefix=mine, kind=kind)
    try:
        channel = await listener.new_channel()
        await listener.group_add("table.7", channel)
        # One receive for both sends (a cancelled receive unsubscribes a Pub/Sub channel): the
        # first message it gets must be the neighbour's.
        heard = asyncio.ensure_future(listener.receive(channel))
        await asyncio.sleep(0.2)  # the subscription is in place
        await stranger.group_send("table.7", {"type": "table.version", "version": 1})
        await asyncio.sleep(0.5)
        await neighbour.group_send("table.7", {"type": "table.version", "version": 2})
        assert (await asyncio.wait_for(heard, timeout=3))["version"] == 2
    finally:
        for layer in (listener, stranger, neighbour):
            await layer.flush()  # core: removes this prefix's keys; Pub/Sub: unsubscribes


def test_two_rooms_on_one_redis_hear_only_their_own_table_announcements(redis_url: str) -> None:
    # Pub/Sub channels are the whole server's, whatever the database number in the URL.
    asyncio.run(_rooms_on_one_redis_hear_only_their_own(redis_url, "pubsub"))


def test_the_core_layer_keeps_rooms_apart_too(redis_url: str) -> None:
    asyncio.run(_rooms_on_one_redis_hear_only_their_own(redis_url, "core"))


def test_without_redis_the_layer_is_in_memory() -> None:
    config = channel_layers(redis_url="", state_prefix="svara:live:")
    assert config["default"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
