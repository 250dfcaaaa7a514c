"""The staff's chat moderation: delete, mute, close; each needs its right and a reason, writes one
staff action, acts once per form, and refuses bad input with nothing changed. A deletion reaches
the table's open pages through its channel group only once it is committed."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from accounts.models import StaffAction
from games import staff_kinds
from games.live.service import group_name
from games.models import ChatMessage, ChatMute, Report
from games.social.moderation import active_mute, close_report, delete_chat_message, mute_in_chat
from games.social.refusals import Refused
from games.social.reports import report_message
from tests.social.kit import chat_room
from tests.staff_roles import moderator, staff_with, superuser

CHAT_RIGHTS = ("games.delete_chatmessage", "games.add_chatmute", "games.change_report")


def chat_moderator():
    return staff_with(*CHAT_RIGHTS)


@pytest.mark.django_db
def test_a_deleted_message_is_marked_and_logged_with_who_and_why():
    _ann, bob, table, line = chat_room()
    mod = chat_moderator()
    delete_chat_message(message=line, staff=mod, reason="insult", token="form-1")
    line.refresh_from_db()
    assert line.deleted_at is not None and line.deleted_by == mod
    action = StaffAction.objects.get()
    assert (action.kind, action.staff_user, action.user, action.table_id, action.reason) == (
        staff_kinds.CHAT_DELETE.name,
        mod,
        bob,
        table.pk,
        "insult",
    )
    assert action.detail["text"] == "you play like a fish"
    with pytest.raises(Refused, match="already sent"):  # the same form again
        delete_chat_message(message=line, staff=mod, reason="insult", token="form-1")
    with pytest.raises(Refused, match="deleted already"):
        delete_chat_message(message=line, staff=mod, reason="insult", token="form-2")
    assert StaffAction.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, refusal",
    [
        ({"reason": ""}, "reason is required"),
        ({"reason": "   "}, "reason is required"),
        ({"message": 999_999}, "no such message"),
        ({"message": "1"}, "no such message"),
        ({"token": "x" * 101}, "form is damaged"),
    ],
)
def test_a_bad_deletion_is_refused_and_nothing_changes(change, refusal):
    _ann, _bob, _table, line = chat_room()
    args = {"message": line, "staff": chat_moderator(), "reason": "insult", **change}
    with pytest.raises(Refused, match=refusal):
        delete_chat_message(**args)
    line.refresh_from_db()
    assert line.deleted_at is None and not StaffAction.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("role", [moderator, lambda: staff_with("games.add_chatmute", "games.change_report")])
def test_only_staff_with_the_right_delete(role):
    ann, _bob, _table, line = chat_room()
    for who in (role(), ann):
        with pytest.raises(Refused, match="right to delete chat messages"):
            delete_chat_message(message=line, staff=who, reason="insult")
    line.refresh_from_db()
    assert line.deleted_at is None and not StaffAction.objects.exists()


@pytest.mark.django_db
def test_a_mute_keeps_a_player_out_of_the_chat_for_its_minutes():
    _ann, bob, _table, _line = chat_room()
    mod = chat_moderator()
    mute = mute_in_chat(user=bob, staff=mod, minutes=60, reason="flooding", token="mute-1")
    assert 59 * 60 < (mute.until - timezone.now()).total_seconds() <= 3600
    assert active_mute(user=bob) == mute and mute.created_by == mod and mute.reason == "flooding"
    action = StaffAction.objects.get()
    assert (action.kind, action.user, action.detail["minutes"]) == (staff_kinds.CHAT_MUTE.name, bob, 60)
    with pytest.raises(Refused, match="already sent"):
        mute_in_chat(user=bob, staff=mod, minutes=60, reason="flooding", token="mute-1")
    assert ChatMute.objects.count() == 1
    ChatMute.objects.update(until=timezone.now())
    assert active_mute(user=bob) is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, refusal",
    [
        ({"minutes": 0}, "from 1 minute"),
        ({"minutes": -5}, "from 1 minute"),
        ({"minutes": "15"}, "from 1 minute"),
        ({"minutes": 10**9}, "from 1 minute"),
        ({"minutes": True}, "from 1 minute"),
        ({"reason": ""}, "reason is required"),
        ({"user": None}, "no such player"),
        ({"staff": None}, "right to mute"),
    ],
)
def test_a_bad_mute_is_refused_and_nothing_stored(change, refusal):
    _ann, bob, _table, _line = chat_room()
    args = {"user": bob, "staff": chat_moderator(), "minutes": 15, "reason": "rude", **change}
    with pytest.raises(Refused, match=refusal):
        mute_in_chat(**args)
    assert not ChatMute.objects.exists() and not StaffAction.objects.exists()


@pytest.mark.django_db
def test_a_moderator_mutes_neither_themselves_nor_another_staff_member():
    mod, other = chat_moderator(), chat_moderator()
    with pytest.raises(Refused, match="cannot mute themselves"):
        mute_in_chat(user=mod, staff=mod, minutes=15, reason="test")
    with pytest.raises(Refused, match="Only superusers"):
        mute_in_chat(user=other, staff=mod, minutes=15, reason="rude")
    mute_in_chat(user=other, staff=superuser(), minutes=15, reason="rude")
    assert ChatMute.objects.count() == 1


@pytest.mark.django_db
def test_closing_a_report_records_the_outcome():
    ann, bob, _table, line = chat_room()
    report = report_message(reporter=ann, message=line, reason="abuse")
    mod = chat_moderator()
    with pytest.raises(Refused, match="outcome"):
        close_report(report=report, staff=mod, outcome=" ")
    with pytest.raises(Refused, match="right to close reports"):
        close_report(report=report, staff=moderator(), outcome="warned")
    with pytest.raises(Refused, match="no such report"):
        close_report(report=999_999, staff=mod, outcome="warned")
    assert not StaffAction.objects.exists()
    close_report(report=report, staff=mod, outcome="message deleted, muted 1 h", token="close-1")
    report.refresh_from_db()
    assert (report.status, report.handled_by, report.outcome) == (
        Report.Status.CLOSED,
        mod,
        "message deleted, muted 1 h",
    )
    assert report.handled_at is not None
    action = StaffAction.objects.get()
    assert (action.kind, action.user, action.detail["report"]) == (
        staff_kinds.REPORT_CLOSE.name,
        bob,
        report.pk,
    )
    with pytest.raises(Refused, match="dealt with already"):
        close_report(report=report, staff=mod, outcome="again")
    assert StaffAction.objects.count() == 1


# ---------------------------------------------------------------- the live deletion


async def _listen(table_id: int) -> str:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group_name(table_id), channel)
    return channel


async def _next(channel: str, timeout: float = 3) -> dict:
    return await asyncio.wait_for(get_channel_layer().receive(channel), timeout)


@pytest.mark.django_db(transaction=True)
async def test_a_deletion_is_sent_to_the_tables_group_once_committed():
    _ann, _bob, table, line = await sync_to_async(chat_room)()
    mod = await sync_to_async(chat_moderator)()
    channel = await _listen(table.pk)
    # A second listener for the check before the commit: a receive that times out is cancelled,
    # and a cancelled receive leaves the channel layer's channel (it unsubscribes).
    early = await _listen(table.pk)

    async def nothing_yet() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await _next(early, timeout=0.5)

    def delete_and_wait():
        with transaction.atomic():
            delete_chat_message(message=line, staff=mod, reason="insult")
            # Not yet: uncommitted, the deletion could still roll back and the line come back.
            async_to_sync(nothing_yet)()

    await sync_to_async(delete_and_wait)()
    assert await _next(channel) == {"type": "chat.deleted", "message_id": line.pk}


@pytest.mark.django_db(transaction=True)
async def test_nothing_is_sent_when_the_deletion_rolls_back():
    _ann, _bob, table, line = await sync_to_async(chat_room)()
    mod = await sync_to_async(chat_moderator)()
    channel = await _listen(table.pk)

    def delete_then_fail():
        with transaction.atomic():
            delete_chat_message(message=line, staff=mod, reason="insult")
            raise RuntimeError("the request failed after the deletion")

    with pytest.raises(RuntimeError):
        await sync_to_async(delete_then_fail)()
    with pytest.raises(asyncio.TimeoutError):
        await _next(channel, timeout=0.5)
    assert (await ChatMessage.objects.aget(pk=line.pk)).deleted_at is None
    assert not await StaffAction.objects.aexists()
