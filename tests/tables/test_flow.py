"""A heads-up hand played over real WebSockets through the table consumer."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.services import wallet_balance
from games.live import service
from games.models import PlayedHand
from tests.live.tablekit import connect, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


async def test_two_players_sit_and_play_a_hand_to_the_end():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)()
    a = await connect(ann, table.pk)
    b = await connect(bob, table.pk)
    await a.send(verb="sit", position="0", buy_in="500", action_id="s1")
    await a.until(lambda f: "ann sits down" in f)
    await b.send(verb="sit", position="1", buy_in="500", action_id="s2")
    await b.until(lambda f: "bob sits down" in f)
    assert await sync_to_async(wallet_balance)(user=ann) == 500
    # The start timer fires after a few seconds: start it now instead of waiting.
    await service.start_next_hand(table_id=table.pk)
    await a.drain()
    await b.drain()
    assert "Hand 1" in a.last and "Dark round" in a.last
    # Whoever is to act sees the buttons; play: decline dark, then pass/fold.
    for _ in range(10):
        actor = a if "NO DARK" in a.last or "FOLD" in a.last or "PASS" in a.last else b
        if "NO DARK" in actor.last:
            await actor.act("decline")
        elif "verb-fold" in actor.last:
            await actor.act("fold")
        await a.drain()
        await b.drain()
        state = await service.load_table_state(table.pk)
        if state.doc["hand"] is None and state.doc["ended"] is None:
            break
    record = await sync_to_async(PlayedHand.objects.get)(table=table, number=1)
    assert record.status == PlayedHand.Status.FINISHED
    assert record.record["result"]["finished"] is True
    await a.comm.disconnect()
    await b.comm.disconnect()
