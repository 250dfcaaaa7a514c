"""The staff's side: the report's page shows the message, its hand and the chat around it; each
step there (delete, mute, close) goes through its service, needs a reason and the right, and is
logged once; the chat's list deletes through the service; the reports' list and the report's page
cost a fixed number of queries; the dashboard and a player's picture show the reports."""

# ruff: noqa: RUF001  (Bulgarian text)
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import StaffAction
from games import staff_kinds
from games.models import ChatMessage, ChatMute, ChatWord, PlayedHand, Report
from games.social.reports import report_message, report_player
from tests.live.tablekit import make_player
from tests.social.kit import chat_room, say
from tests.social.test_moderation import CHAT_RIGHTS
from tests.staff_pages import confirm, list_action, messages_of
from tests.staff_roles import moderator, staff_with

pytestmark = pytest.mark.django_db

REPORTS = reverse("admin:games_report_changelist")
MESSAGES = reverse("admin:games_chatmessage_changelist")


def report_url(report: Report) -> str:
    return reverse("admin:games_report_change", args=[report.pk])


@pytest.fixture
def reported():
    """bob's rude line in hand 3, with 12 lines before it and 12 after, reported by ann."""
    ann, bob, table, _first = chat_room()
    for i in range(12):
        say(table, ann if i % 2 else bob, f"before {i}", hand=2)
    line = say(table, bob, "nobody wants you here", hand=3)
    for i in range(12):
        say(table, ann, f"after {i}", hand=3)
    PlayedHand.objects.create(
        table=table, number=3, status="finished", started_at=timezone.now(), server_seed_hash="h" * 64
    )
    report = report_message(reporter=ann, message=line, reason="abuse", text="again and again")
    return report


@pytest.fixture
def mod(client):
    staff = staff_with(*CHAT_RIGHTS, "accounts.add_ban")
    client.force_login(staff)
    return staff


def page_form(client, report: Report) -> dict:
    page = client.get(report_url(report))
    assert page.status_code == 200
    return {"token": page.context["form"]["token"].value()}


def test_the_report_page_shows_the_message_its_hand_and_the_chat_around_it(client, mod, reported):
    page = client.get(report_url(reported))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="reported-line"' in html and "<strong>nobody wants you here</strong>" in html
    assert "again and again" in html and "abuse or insults" in html
    lines = [line.text for line in page.context["lines"]]
    assert lines == [f"before {i}" for i in range(2, 12)] + ["nobody wants you here"] + [
        f"after {i}" for i in range(10)
    ]
    hand = PlayedHand.objects.get(number=3)
    assert reverse("admin:games_playedhand_change", args=[hand.pk]) in html
    assert reverse("hand_replay", args=[hand.pk]) in html
    assert reverse("admin:accounts_user_ban", args=[reported.reported_id]) in html
    for label in (
        "Delete the message",
        "Mute in chat for 15 minutes",
        "Mute in chat for 24 hours",
        "Close the report",
    ):
        assert label in html


def test_deleting_from_the_report_records_it_and_can_close_the_report_too(client, mod, reported):
    data = {**page_form(client, reported), "reason": "insult", "do": "delete", "close_too": "on"}
    done = client.post(report_url(reported), data, follow=True)
    assert "The message is deleted" in " ".join(messages_of(done))
    line = ChatMessage.objects.get(pk=reported.message_id)
    assert line.deleted_at is not None and line.deleted_by == mod
    reported.refresh_from_db()
    assert reported.status == Report.Status.CLOSED and reported.outcome == "insult"
    kinds = sorted(StaffAction.objects.values_list("kind", flat=True))
    assert kinds == [staff_kinds.CHAT_DELETE.name, staff_kinds.REPORT_CLOSE.name]
    # The same form sent again (Back, resubmit) acts no more.
    again = client.post(report_url(reported), data, follow=True)
    assert any("already" in m for m in messages_of(again))
    assert StaffAction.objects.count() == 2


@pytest.mark.parametrize("step, minutes", [("mute-15", 15), ("mute-60", 60), ("mute-1440", 1440)])
def test_a_mute_from_the_report_lasts_its_time(client, mod, reported, step, minutes):
    client.post(report_url(reported), {**page_form(client, reported), "reason": "rude", "do": step})
    mute = ChatMute.objects.get()
    assert mute.user_id == reported.reported_id and mute.created_by == mod
    left = (mute.until - timezone.now()).total_seconds()
    assert minutes * 60 - 60 < left <= minutes * 60
    action = StaffAction.objects.get()
    assert (action.kind, action.reason, action.detail["minutes"]) == (
        staff_kinds.CHAT_MUTE.name,
        "rude",
        minutes,
    )
    reported.refresh_from_db()
    assert reported.status == Report.Status.OPEN


@pytest.mark.parametrize(
    "data, shown",
    [
        ({"reason": "", "do": "close"}, "This field is required."),
        ({"reason": "x", "do": "explode"}, "Choose what to do about the report."),
        ({"reason": "x", "do": "close", "token": ""}, "This form is damaged"),
    ],
)
def test_bad_input_on_the_report_page_is_refused_cleanly(client, mod, reported, data, shown):
    page = client.post(report_url(reported), {**page_form(client, reported), **data})
    assert page.status_code == 400
    assert shown in page.content.decode()
    reported.refresh_from_db()
    assert reported.status == Report.Status.OPEN and not StaffAction.objects.exists()
    assert ChatMessage.objects.filter(deleted_at__isnull=False).count() == 0


def test_a_moderator_without_the_chat_rights_sees_no_buttons_and_cannot_act(client, reported):
    client.force_login(moderator())  # view rights and bans only
    html = client.get(report_url(reported)).content.decode()
    assert "Delete the message" not in html and "Close the report" not in html
    assert reverse("admin:accounts_user_ban", args=[reported.reported_id]) in html
    token = client.get(report_url(reported)).context["form"]["token"].value()
    done = client.post(report_url(reported), {"token": token, "reason": "x", "do": "close"}, follow=True)
    assert any("right to close reports" in m for m in messages_of(done))
    reported.refresh_from_db()
    assert reported.status == Report.Status.OPEN and not StaffAction.objects.exists()


def test_the_reports_list_puts_waiting_ones_first(client, mod, reported):
    ann, bob = reported.reporter, reported.reported
    old = report_player(reporter=make_player("cem"), reported=bob, reason="spam")
    Report.objects.filter(pk=old.pk).update(
        status=Report.Status.CLOSED, created_at=timezone.now() - timedelta(days=1)
    )
    newer = report_player(reporter=ann, reported=bob, reason="name")
    listed = list(client.get(REPORTS).context["cl"].result_list)
    assert [r.pk for r in listed] == [reported.pk, newer.pk, old.pk]


def test_the_reports_list_costs_the_same_queries_whatever_the_rows(client, mod, reported):
    client.get(REPORTS)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(REPORTS).status_code == 200
        return len(queries)

    few = count()
    for i in range(8):
        someone = make_player(f"p{i}")
        line = say(reported.table, someone, f"spam {i}")
        report_message(reporter=reported.reporter, message=line, reason="spam")
        report_player(reporter=someone, reported=reported.reported, reason="abuse")
    assert count() == few
    assert few <= 12


@pytest.mark.parametrize("listing", ["chatmessage", "chatmute", "chatword"])
def test_the_chat_lists_cost_the_same_queries_whatever_the_rows(client, mod, reported, listing):
    url = reverse(f"admin:games_{listing}_changelist")
    client.get(url)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    few = count()
    boss = staff_with(*CHAT_RIGHTS)
    for i in range(8):
        someone = make_player(f"p{i}")
        say(reported.table, someone, f"line {i}")
        ChatMute.objects.create(user=someone, until=timezone.now(), reason="x", created_by=boss)
        ChatWord.objects.create(word=f"word{i}")
    assert count() == few


def test_the_report_page_costs_the_same_queries_whatever_the_chat(client, mod, reported):
    client.get(report_url(reported))
    with CaptureQueriesContext(connection) as first:
        client.get(report_url(reported))
    for i in range(30):
        say(reported.table, reported.reporter, f"more {i}")
    with CaptureQueriesContext(connection) as second:
        client.get(report_url(reported))
    assert len(first) == len(second)


def test_the_chat_list_searches_and_deletes_through_the_service(client, mod, reported):
    found = client.get(MESSAGES, {"q": "nobody wants"})
    assert [line.pk for line in found.context["cl"].result_list] == [reported.message_id]
    data = {**list_action(client, MESSAGES, "delete_messages", [reported.message_id]), "reason": "insult"}
    confirm(client, MESSAGES, data)
    line = ChatMessage.objects.get(pk=reported.message_id)
    assert line.deleted_by == mod
    assert StaffAction.objects.get().kind == staff_kinds.CHAT_DELETE.name
    assert ChatMessage.objects.count() == 26  # deleted for the players, kept for the staff


def test_the_chat_list_mutes_the_authors_through_the_service(client, mod, reported):
    bob = reported.reported
    lines = list(ChatMessage.objects.filter(user=bob).values_list("pk", flat=True)[:3])
    data = {
        **list_action(client, MESSAGES, "mute_authors", lines),
        "reason": "rude all night",
        "minutes": "60",
    }
    done = confirm(client, MESSAGES, data, follow=True)
    assert any("bob is muted in chat until" in m for m in messages_of(done))
    mute = ChatMute.objects.get()  # one mute for the one author of the three lines
    assert mute.user == bob and 59 * 60 < (mute.until - timezone.now()).total_seconds() <= 3600
    action = StaffAction.objects.get()
    assert (action.kind, action.reason) == (staff_kinds.CHAT_MUTE.name, "rude all night")
    confirm(client, MESSAGES, data)  # the same form again acts no more
    assert ChatMute.objects.count() == 1 and StaffAction.objects.count() == 1


def test_a_mute_for_a_length_not_offered_is_refused(client, mod, reported):
    data = {
        **list_action(client, MESSAGES, "mute_authors", [reported.message_id]),
        "reason": "rude",
        "minutes": "99999",
    }
    page = confirm(client, MESSAGES, data)
    assert page.status_code == 200 and "Select a valid choice" in page.content.decode()
    assert not ChatMute.objects.exists() and not StaffAction.objects.exists()


def test_no_chat_delete_action_without_the_right(client, reported):
    client.force_login(moderator())
    response = client.post(MESSAGES, {"action": "delete_messages", "_selected_action": [reported.message_id]})
    assert ChatMessage.objects.get(pk=reported.message_id).deleted_at is None
    assert response.status_code in (200, 302) and not StaffAction.objects.exists()


def test_the_word_list_is_kept_in_the_admin(client):
    client.force_login(staff_with("games.add_chatword", "games.delete_chatword"))
    add = reverse("admin:games_chatword_add")
    assert client.post(add, {"word": "  Fish "}).status_code == 302
    assert list(ChatWord.objects.values_list("word", flat=True)) == ["fish"]
    page = client.post(add, {"word": "two words"})
    assert "One word, without spaces." in page.content.decode()
    assert ChatWord.objects.count() == 1


def test_the_dashboard_says_how_many_reports_wait_and_links_them(client, mod, reported):
    client.force_login(staff_with(*CHAT_RIGHTS, "accounts.view_ledgeraccount"))
    html = client.get(reverse("oversight:dashboard")).content.decode()
    assert "1 report waiting" in html and f"{REPORTS}?status__exact=open" in html


def test_a_players_picture_shows_reports_against_them_and_their_mutes(client, mod, reported):
    client.post(report_url(reported), {**page_form(client, reported), "reason": "rude", "do": "mute-60"})
    html = client.get(reverse("admin:games_player_picture", args=[reported.reported_id])).content.decode()
    assert report_url(reported) in html and "nobody wants you here" in html
    assert 'id="mutes"' in html and "rude" in html


def test_the_report_page_speaks_bulgarian(client, mod, reported):
    html = client.get(report_url(reported), HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Какво да се направи" in html and "Изтрий съобщението" in html and "обиди или тормоз" in html
    assert "Заглуши в чата за 1 час" in html and "Чатът на масата" in html
