"""Staff actions on tables in play: each needs its own permission, checked on the server (posted
straight to the admin, refused with nothing changed); a table's stake, seats and dark play are
fixed while anyone sits there; a renaming is recorded; a removed player is told why."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.management import call_command

from accounts.models import LedgerAccount, StaffAction
from games.live import service, staff
from games.live.entries import log_text, notice_text
from games.models import Seat, Table, TableEvent
from tests.live.tablekit import connect, make_player, make_table
from tests.staff_pages import confirm, list_action, messages_of
from tests.staff_roles import help_desk, moderator, staff_with, superuser

pytestmark = pytest.mark.django_db(transaction=True)

TABLES, SEATS = "/admin/games/table/", "/admin/games/seat/"
BG_REMOVED = "Администрацията отстрани bob от масата: обиди"


@pytest.fixture
def three_seated():
    table = make_table(name="oak", seat_count=3, dark_play=True)
    players = [make_player(name) for name in ("ann", "bob", "cem")]
    for position, player in enumerate(players):
        async_to_sync(service.table_sit)(user=player, table_id=table.pk, position=position, buy_in=500)
    state = async_to_sync(service.start_next_hand)(table_id=table.pk)
    assert state.doc["hand"] is not None
    return table, players


def state_of(table: Table) -> tuple:
    """Everything a refused table action must leave as it was: database, ledger, the table in play."""
    doc = async_to_sync(service.load_table_state)(table.pk).doc
    return (
        Table.objects.filter(pk=table.pk).values().get(),
        sorted(Seat.objects.filter(table=table).values_list("user_id", "position", "sitting_out")),
        sorted(LedgerAccount.objects.values_list("key", "balance")),
        TableEvent.objects.count(),
        StaffAction.objects.count(),
        doc["table"],
        [seat and (seat["user_id"], seat["leaving"]) for seat in doc["seats"]],
        doc["hand"] and doc["hand"]["number"],
    )


def offered(client, url: str) -> list[str]:
    form = client.get(url).context["action_form"]
    return [] if form is None else [name for name, _ in form.fields["action"].choices if name]


def post_action(client, url, action, pks, reason="r"):
    data = {"action": action, "_selected_action": pks, "apply": "1", "token": "t1", "reason": reason}
    return client.post(url, {**data, "confirm": "1"}, follow=True)


@pytest.mark.parametrize("role", [moderator, help_desk, lambda: staff_with("games.remove_player")])
def test_closing_a_table_needs_its_permission(client, three_seated, role):
    table, _ = three_seated
    client.force_login(role())
    assert "close_tables" not in offered(client, TABLES)
    before = state_of(table)
    response = post_action(client, TABLES, "close_tables", [table.pk])
    assert response.status_code == 200
    assert state_of(table) == before


@pytest.mark.parametrize("role", [moderator, help_desk, lambda: staff_with("games.close_table")])
def test_removing_a_player_needs_its_permission(client, three_seated, role):
    table, players = three_seated
    client.force_login(role())
    assert "remove_players" not in offered(client, SEATS)
    before = state_of(table)
    seat = Seat.objects.get(table=table, user=players[1])
    post_action(client, SEATS, "remove_players", [seat.pk])
    assert state_of(table) == before


def test_the_services_refuse_staff_without_the_permission(three_seated):
    table, players = three_seated
    mod = moderator()
    before = state_of(table)
    with pytest.raises(staff.Refused, match="do not have the right to close tables"):
        async_to_sync(staff.table_close)(table_id=table.pk, staff_user=mod, reason="r")
    with pytest.raises(staff.Refused, match="do not have the right to remove players"):
        async_to_sync(staff.seat_remove)(table_id=table.pk, user=players[0], staff_user=mod, reason="r")
    with pytest.raises(staff.Refused, match="do not have the right to change tables"):
        async_to_sync(staff.table_change_settings)(table_id=table.pk, staff_user=mod, changes={"name": "x"})
    assert state_of(table) == before


def test_staff_holding_just_the_permission_close_and_remove(client, three_seated):
    table, players = three_seated
    remover = staff_with("games.remove_player")
    client.force_login(remover)
    assert offered(client, SEATS) == ["remove_players"]
    seat = Seat.objects.get(table=table, user=players[2])
    confirm(client, SEATS, {**list_action(client, SEATS, "remove_players", [seat.pk]), "reason": "abuse"})
    assert StaffAction.objects.get(kind="seat_remove").staff_user == remover

    closer = staff_with("games.close_table")
    client.force_login(closer)
    assert offered(client, TABLES) == ["close_tables"]
    confirm(client, TABLES, {**list_action(client, TABLES, "close_tables", [table.pk]), "reason": "bug"})
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    action = StaffAction.objects.get(kind="table_close")
    assert (action.staff_user, action.table_id, action.reason) == (closer, table.pk, "bug")
    # cem was removed mid-hand: he folds, and is cashed out when the hand ends, here by the closing.
    assert sorted(action.detail["players"]) == ["ann", "bob", "cem"]
    call_command("audit_chips")


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"reason": ""}, "This field is required"),
        ({"reason": "   "}, "This field is required"),
    ],
)
def test_a_table_action_without_a_reason_changes_nothing(client, three_seated, fields, error):
    table, players = three_seated
    client.force_login(superuser())
    before = state_of(table)
    seat = Seat.objects.get(table=table, user=players[0])
    for url, action, pk in ((TABLES, "close_tables", table.pk), (SEATS, "remove_players", seat.pk)):
        response = confirm(client, url, {**list_action(client, url, action, [pk]), **fields})
        assert error in response.content.decode()
    assert state_of(table) == before


def test_the_services_refuse_bad_input_with_a_message(three_seated):
    table, players = three_seated
    boss, outsider = superuser(), make_player("dan")
    before = state_of(table)
    with pytest.raises(staff.Refused, match="reason is required to close"):
        async_to_sync(staff.table_close)(table_id=table.pk, staff_user=boss, reason=" ")
    with pytest.raises(staff.Refused, match="there is no such table"):
        async_to_sync(staff.table_close)(table_id=999999, staff_user=boss, reason="r")
    with pytest.raises(staff.Refused, match="reason is required to remove"):
        async_to_sync(staff.seat_remove)(table_id=table.pk, user=players[0], staff_user=boss, reason="")
    with pytest.raises(staff.Refused, match="dan is not seated at this table; nothing was changed"):
        async_to_sync(staff.seat_remove)(table_id=table.pk, user=outsider, staff_user=boss, reason="r")
    assert state_of(table) == before


# --- a table's settings ---


def change_page_data(client, table: Table, **changes) -> dict:
    page = client.get(f"{TABLES}{table.pk}/change/")
    form = page.context["adminform"].form
    data = {"seat_rows-TOTAL_FORMS": "0", "seat_rows-INITIAL_FORMS": "0"}
    for name in form.fields:
        value = form.initial.get(name)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    if page.context["settings_editable"]:
        data["_settings_editable"] = "1"
    return {**data, **changes}


def test_stake_seats_and_dark_play_are_fixed_while_anyone_sits(client, three_seated):
    table, _ = three_seated
    client.force_login(superuser())
    page = client.get(f"{TABLES}{table.pk}/change/")
    assert not page.context["settings_editable"]
    assert {"stake", "seat_count", "dark_play"} <= set(page.context["adminform"].readonly_fields)
    before = state_of(table)

    # Posted anyway (a hand-made request can): not in the form, so nothing changes.
    data = change_page_data(client, table)
    data.update({"stake": "200", "seat_count": "2"})
    data.pop("dark_play", None)
    client.post(f"{TABLES}{table.pk}/change/", data)
    assert state_of(table) == before

    # From a page that showed them editable before the players sat down: refused, with a message.
    response = client.post(f"{TABLES}{table.pk}/change/", {**data, "_settings_editable": "1"})
    assert response.status_code == 200
    assert "fixed while players sit at the table; nothing was changed" in response.content.decode()
    assert state_of(table) == before

    # Straight to the service: refused too.
    with pytest.raises(staff.Refused, match="fixed while players sit"):
        async_to_sync(staff.table_change_settings)(
            table_id=table.pk, staff_user=superuser(), changes={"stake": 200}
        )
    assert state_of(table) == before


def test_a_renaming_while_seated_is_recorded_and_the_table_in_play_follows(client, three_seated):
    table, _ = three_seated
    boss = superuser()
    client.force_login(boss)
    response = client.post(f"{TABLES}{table.pk}/change/", change_page_data(client, table, name="elm"))
    assert response.status_code == 302
    assert Table.objects.get(pk=table.pk).name == "elm"
    event = TableEvent.objects.get(kind=TableEvent.Kind.RENAMED)
    assert (event.table_id, event.staff_user, event.detail) == (table.pk, boss, {"from": "oak", "to": "elm"})
    action = StaffAction.objects.get(kind="table_edit")
    assert (action.table_id, action.detail) == (table.pk, {"name": ["oak", "elm"]})
    doc = async_to_sync(service.load_table_state)(table.pk).doc
    assert doc["table"]["name"] == "elm" and doc["hand"] is not None  # the hand plays on


def test_an_empty_tables_settings_change_and_the_table_in_play_follows(client):
    table = make_table(name="oak", seat_count=3, stake=10, dark_play=True)
    async_to_sync(service.load_table_state)(table.pk)  # the lobby has shown it: it is in the store
    client.force_login(superuser())
    assert client.get(f"{TABLES}{table.pk}/change/").context["settings_editable"]
    data = change_page_data(client, table, stake="200", seat_count="2")
    data.pop("dark_play")
    assert client.post(f"{TABLES}{table.pk}/change/", data).status_code == 302
    table.refresh_from_db()
    assert (table.stake, table.seat_count, table.dark_play) == (200, 2, False)
    doc = async_to_sync(service.load_table_state)(table.pk).doc
    assert (doc["table"]["stake"], doc["table"]["seat_count"], doc["table"]["dark_play"]) == (200, 2, False)
    assert doc["seats"] == [None, None]
    event = TableEvent.objects.get(kind=TableEvent.Kind.SETTINGS)
    assert event.detail == {"stake": [10, 200], "seat_count": [3, 2], "dark_play": [True, False]}

    # And a player sitting down now plays at the new stake.
    ann = make_player("ann")
    with pytest.raises(service.Refused, match="between 4000 and 20000"):
        async_to_sync(service.table_sit)(user=ann, table_id=table.pk, position=0, buy_in=500)


@pytest.mark.parametrize("role", [moderator, help_desk])
def test_changing_a_table_needs_change_table(client, role):
    table = make_table(name="oak")
    client.force_login(role())
    assert client.post(f"{TABLES}{table.pk}/change/", {"name": "elm", "stake": "50"}).status_code == 403
    assert Table.objects.get(pk=table.pk).name == "oak" and not TableEvent.objects.exists()


def test_the_kind_is_never_editable(client):
    table = make_table(name="oak")
    client.force_login(superuser())
    client.post(f"{TABLES}{table.pk}/change/", change_page_data(client, table, kind="practice"))
    assert Table.objects.get(pk=table.pk).kind == "cash"


# --- a removed player is told why ---


async def test_a_removed_player_and_the_table_are_told_why():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)()
    for position, player in enumerate((ann, bob)):
        await service.table_sit(user=player, table_id=table.pk, position=position, buy_in=500)
    a, b = await connect(ann, table.pk), await connect(bob, table.pk)
    await service.start_next_hand(table_id=table.pk)
    boss = await sync_to_async(superuser)()
    await staff.seat_remove(table_id=table.pk, user=bob, staff_user=boss, reason="abusive chat")
    told = "bob was removed from the table by staff: abusive chat"
    await b.until(lambda f: told in f)
    await a.until(lambda f: told in f)
    doc = (await service.load_table_state(table.pk)).doc
    assert told in log_text(doc) and notice_text(doc) == told
    await a.comm.disconnect()
    await b.comm.disconnect()


def test_the_removal_notice_is_worded_in_bulgarian(three_seated):
    from django.utils import translation

    from games.tables.ui.log import render_entry

    table, players = three_seated
    async_to_sync(staff.seat_remove)(
        table_id=table.pk, user=players[1], staff_user=superuser(), reason="обиди"
    )
    doc = async_to_sync(service.load_table_state)(table.pk).doc
    with translation.override("bg"):
        assert render_entry(doc["notice"]) == BG_REMOVED


def test_a_removal_or_a_closing_sent_twice_acts_and_logs_once(client, three_seated):
    table, players = three_seated
    client.force_login(superuser())
    seat = Seat.objects.get(table=table, user=players[1])
    data = {**list_action(client, SEATS, "remove_players", [seat.pk]), "reason": "abuse"}
    confirm(client, SEATS, data)
    again = confirm(client, SEATS, data, follow=True)  # Back, and the form sent again
    assert any("This form was already sent" in m for m in messages_of(again))
    assert TableEvent.objects.filter(kind=TableEvent.Kind.REMOVED).count() == 1
    assert StaffAction.objects.filter(kind="seat_remove").count() == 1

    data = {**list_action(client, TABLES, "close_tables", [table.pk]), "reason": "bug"}
    confirm(client, TABLES, data)
    again = confirm(client, TABLES, data, follow=True)
    assert any("This form was already sent" in m for m in messages_of(again))
    assert TableEvent.objects.filter(kind=TableEvent.Kind.CLOSED).count() == 1
    assert StaffAction.objects.filter(kind="table_close").count() == 1
    call_command("audit_chips")
