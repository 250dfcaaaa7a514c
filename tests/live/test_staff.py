"""Staff close a table or remove a player from the admin: recorded, chips safe, audit clean."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.services import wallet_balance
from games.live import service
from games.live.entries import notice_text
from games.models import PlayedHand, Seat, Table, TableEvent
from tests.live.tablekit import make_player, make_table
from tests.staff_pages import confirm, list_action, preview

pytestmark = pytest.mark.django_db(transaction=True)

TABLES, SEATS = "/admin/games/table/", "/admin/games/seat/"


@pytest.fixture
def staff_client(client):
    admin = get_user_model().objects.create_superuser(
        username="boss", password="pw-boss-123", email="b@x.org"
    )
    client.force_login(admin)
    client.staff = admin
    return client


@pytest.fixture
def table_in_play():
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(dark_play=True)
    async_to_sync(service.table_sit)(user=ann, table_id=table.pk, position=0, buy_in=500)
    async_to_sync(service.table_sit)(user=bob, table_id=table.pk, position=1, buy_in=500)
    state = async_to_sync(service.start_next_hand)(table_id=table.pk)
    assert state.doc["hand"] is not None
    return table, ann, bob


def test_closing_a_table_needs_a_reason_and_changes_nothing_without_one(staff_client, table_in_play):
    table, ann, bob = table_in_play
    data = list_action(staff_client, TABLES, "close_tables", [table.pk])
    response = confirm(staff_client, TABLES, {**data, "reason": ""})
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert not TableEvent.objects.exclude(kind__in=["sat"]).exists()  # the two sat down; nothing else


def test_closing_a_table_mid_hand_cancels_it_and_cashes_everyone_out(staff_client, table_in_play):
    table, ann, bob = table_in_play
    data = {**list_action(staff_client, TABLES, "close_tables", [table.pk]), "reason": "cheating suspected"}
    page = preview(staff_client, TABLES, data)
    assert page.context["summary"] == [f"Close {table}."]
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN  # not before the confirmation
    response = confirm(staff_client, TABLES, data, follow=True)
    assert "is closed" in response.content.decode()
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert wallet_balance(user=ann) == 1000 and wallet_balance(user=bob) == 1000
    assert not Seat.objects.filter(table=table).exists()
    assert PlayedHand.objects.get(table=table, number=1).status == PlayedHand.Status.CANCELLED
    event = TableEvent.objects.get(table=table, kind=TableEvent.Kind.CLOSED)
    assert event.staff_user == staff_client.staff and event.reason == "cheating suspected"
    state = async_to_sync(service.load_table_state)(table.pk)
    assert state.doc["hand"] is None and state.doc["table"]["status"] == "closed"
    assert "closed by staff" in notice_text(state.doc)
    with pytest.raises(service.Refused, match="closed"):
        async_to_sync(service.table_sit)(user=ann, table_id=table.pk, position=0, buy_in=500)
    call_command("audit_chips")


def test_removing_a_player_folds_their_hand_and_records_who_and_why(staff_client, table_in_play):
    table, ann, bob = table_in_play
    seat = Seat.objects.get(table=table, user=bob)
    data = {**list_action(staff_client, SEATS, "remove_players", [seat.pk]), "reason": "abusive chat"}
    confirm(staff_client, SEATS, data)
    event = TableEvent.objects.get(kind=TableEvent.Kind.REMOVED)
    assert event.user == bob and event.staff_user == staff_client.staff and event.reason == "abusive chat"
    # bob is leaving: he folds when his turn comes; ann plays on until it does.
    from games.engine.hand import Hand

    for _ in range(5):
        state = async_to_sync(service.load_table_state)(table.pk)
        if state.doc["hand"] is None:
            break
        hand = Hand.from_json(state.doc["hand"]["state"])
        assert state.doc["hand"]["players"][hand.to_act] == ann.pk  # never waits for bob
        legal = hand.legal()
        verb, amount = ("decline", None) if "decline" in legal.verbs else ("raise", legal.raise_range[0])
        async_to_sync(service.table_act)(
            user=ann,
            table_id=table.pk,
            verb=verb,
            amount=amount,
            client_version=state.version,
            action_id=f"ann-{state.version}",
            epoch=state.doc["epoch"],
        )
    state = async_to_sync(service.load_table_state)(table.pk)
    assert state.doc["hand"] is None
    assert all(s is None or s["user_id"] != bob.pk for s in state.doc["seats"])
    assert not Seat.objects.filter(table=table, user=bob).exists()
    assert wallet_balance(user=bob) == 1000 - 10  # folded: lost the ante, the rest came back
    call_command("audit_chips")


def test_stored_hands_and_events_are_read_only_in_the_admin(staff_client, table_in_play):
    assert staff_client.get("/admin/games/playedhand/").status_code == 200
    assert staff_client.get("/admin/games/playedhand/add/").status_code == 403
    assert staff_client.get("/admin/games/tableevent/add/").status_code == 403
    assert staff_client.get(f"/admin/games/table/{table_in_play[0].pk}/change/").status_code == 200
