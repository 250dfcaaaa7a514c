"""What players do at a table is on record for staff: sits and buy-ins, chips added, sit-outs and
comebacks, timeouts (and the sit-out they cause), leaves with their cash-out."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.live import runtime, service
from games.live.store import get_state_store
from games.models import TableEvent
from tests.live.test_service_hands import seated_table, to_act

pytestmark = pytest.mark.django_db(transaction=True)


def _events(table_id: int) -> list[tuple[str, str, int | None]]:
    rows = TableEvent.objects.filter(table_id=table_id).order_by("pk").select_related("user")
    return [(e.kind, e.user.username if e.user else "", e.amount) for e in rows]


async def test_the_table_service_records_each_thing_a_player_does() -> None:
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False, turn_seconds=1)
    await service.table_add_chips(user=ann, table_id=table.pk, amount=100)
    await service.table_sit_out(user=bob, table_id=table.pk, sitting_out=True)
    await service.table_sit_out(user=bob, table_id=table.pk, sitting_out=False)
    state = await service.start_next_hand(table_id=table.pk)
    late = await to_act(table)
    due = await get_state_store().claim_due(now=state.deadline.at + 1)
    await runtime.handle_due(due[0])  # the turn clock folds the player to act
    await service.table_leave(user=ann, table_id=table.pk)

    events = await sync_to_async(_events)(table.pk)
    late_name = "ann" if late == ann.pk else "bob"
    assert events[:5] == [
        ("sat", "ann", 500),
        ("sat", "bob", 500),
        ("buy_in", "ann", 100),
        ("sat_out", "bob", None),
        ("back", "bob", None),
    ]
    assert ("timeout", late_name, None) in events
    left = [e for e in events if e[0] == "left"]
    assert left and left[0][1] == "ann" and left[0][2] > 0
