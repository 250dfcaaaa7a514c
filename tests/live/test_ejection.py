"""A ban takes the player off the tables at once: the hand folded, the seat cashed out, every
table socket they have open told and closed, and no way back in."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from accounts.services import ban_user, wallet_balance
from games.live import service
from games.models import Seat
from tests.live.tablekit import connect
from tests.live.test_service_hands import audit_clean
from tests.tables.test_consumer import start, two_seated

pytestmark = pytest.mark.django_db(transaction=True)


def _staff():
    return get_user_model().objects.create_superuser(username="mod", password="pw-for-tests-1")


async def test_a_banned_players_hand_is_folded_their_sockets_closed_and_their_chips_cashed_out() -> None:
    table, ann, bob, a, b = await two_seated()
    await start(table, a, b)
    await a.drain()
    await b.drain()
    staff = await sync_to_async(_staff)()

    await sync_to_async(ban_user)(user=ann, reason="chip dumping", staff_user=staff)

    frame = await a.until(lambda f: "banned by staff" in f)
    assert "banned by staff" in frame
    closed = await a.comm.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4403}
    await b.until(lambda f: "ann is leaving" in f)  # folded at once: heads-up, bob wins now
    state = await service.load_table_state(table.pk)
    assert state.doc["hand"] is None and state.doc["last"]["winner_name"] == "bob"
    assert all(s is None or s["user_id"] != ann.pk for s in state.doc["seats"])
    assert not await sync_to_async(Seat.objects.filter(user=ann).exists)()
    assert await sync_to_async(wallet_balance)(user=ann) == 500 + 490  # all but the ante
    await sync_to_async(audit_clean)()

    with pytest.raises(AssertionError):  # and the banned player's session no longer opens a table
        await connect(ann, table.pk)
