"""The players' report forms: a form without JavaScript, a thank-you, bad
input shown again with its message and nothing stored; a missing or unseen message is not found."""

# ruff: noqa: RUF001  (Bulgarian text)
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Report
from games.social.reports import REPORTS_PER_HOUR
from tests.live.tablekit import make_table
from tests.social.kit import chat_room, say

pytestmark = pytest.mark.django_db


def logged_in(user, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def player_report_url(user) -> str:
    return reverse("report_player", args=[user.get_username()])


def test_a_player_reports_another_from_a_form():
    ann, bob, _table, _line = chat_room()
    client = logged_in(ann)
    page = client.get(player_report_url(bob))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="reason"' in html and 'value="cheating"' in html and "Report bob" in html
    done = client.post(player_report_url(bob), {"reason": "cheating", "text": "always folds to cem"})
    assert done.status_code == 200 and "Thank you, the staff will look at it." in done.content.decode()
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.reason, report.text) == (
        ann,
        bob,
        "cheating",
        "always folds to cem",
    )


def test_a_message_is_reported_from_its_own_page():
    ann, bob, _table, line = chat_room()
    client = logged_in(ann)
    url = reverse("report_message", args=[line.pk])
    html = client.get(url).content.decode()
    assert "you play like a fish" in html and "Report a message by bob" in html
    assert client.post(url, {"reason": "abuse"}).status_code == 200
    assert Report.objects.get().message == line


@pytest.mark.parametrize(
    "data, shown",
    [
        ({}, "Choose a reason for the report."),
        ({"reason": "boring"}, "Choose a reason for the report."),
        ({"reason": "abuse", "text": "x" * 501}, "at most 500 characters"),
    ],
)
def test_bad_input_shows_the_form_again_with_a_message(data, shown):
    ann, bob, _table, _line = chat_room()
    page = logged_in(ann).post(player_report_url(bob), data)
    assert page.status_code == 400
    html = page.content.decode()
    assert shown in html and 'id="report-form"' in html
    assert not Report.objects.exists()


def test_the_services_refusal_is_shown_in_bulgarian_too():
    ann, bob, _table, _line = chat_room()
    client = logged_in(ann, "bg")
    for _ in range(REPORTS_PER_HOUR):
        client.post(player_report_url(bob), {"reason": "spam"})
    page = client.post(player_report_url(bob), {"reason": "spam"})
    assert page.status_code == 400 and 'id="report-refused"' in page.content.decode()
    assert "last hour" not in page.content.decode()
    assert Report.objects.count() == REPORTS_PER_HOUR


def test_oneself_a_missing_player_and_a_missing_deleted_or_private_message_are_refused():
    ann, bob, table, line = chat_room()
    client = logged_in(ann)
    assert client.post(player_report_url(ann), {"reason": "abuse"}).status_code == 400
    assert client.get(reverse("report_player", args=["nobody"])).status_code == 404
    assert client.get(reverse("report_message", args=[999_999])).status_code == 404
    secret = make_table(name="Secret", private=True)
    hidden = say(secret, bob, "only for the invited")
    page = client.get(reverse("report_message", args=[hidden.pk]))
    assert page.status_code == 404 and "only for the invited" not in page.content.decode()
    line.deleted_at = timezone.now()
    line.save()
    assert client.post(reverse("report_message", args=[line.pk]), {"reason": "abuse"}).status_code == 404
    assert not Report.objects.exists()


def test_visitors_are_sent_to_log_in():
    _ann, bob, _table, line = chat_room()
    for url in (player_report_url(bob), reverse("report_message", args=[line.pk])):
        page = Client().get(url)
        assert page.status_code == 302 and "login" in page["Location"]


def test_the_player_page_offers_a_report_to_others_only():
    ann, bob, _table, _line = chat_room()
    client = logged_in(ann)
    own = client.get(reverse("player_page", args=["ann"])).content.decode()
    assert 'id="report-player"' not in own
    other = client.get(reverse("player_page", args=["bob"])).content.decode()
    assert f'href="{player_report_url(bob)}" id="report-player"' in other


def test_the_report_form_and_its_thanks_speak_bulgarian():
    ann, bob, _table, _line = chat_room()
    client = logged_in(ann, "bg")
    html = client.get(player_report_url(bob)).content.decode()
    assert "Какво не е наред?" in html and "измама или сговор" in html and "Изпрати сигнала" in html
    done = client.post(player_report_url(bob), {"reason": "name"}).content.decode()
    assert "Благодарим ви, персоналът ще го разгледа." in done


def test_a_player_who_sat_at_a_private_table_reports_a_line_said_there():
    """Issue 37: having left the private table (no seat now), the player got 404 for its lines."""
    from games.models import TableEvent

    ann, bob, _table, _line = chat_room()
    secret = make_table(name="Secret", private=True)
    TableEvent.objects.create(table=secret, kind=TableEvent.Kind.SAT, user=ann, amount=500)
    hidden = say(secret, bob, "you play like a fish")
    client = logged_in(ann)
    assert client.get(reverse("report_message", args=[hidden.pk])).status_code == 200
    response = client.post(reverse("report_message", args=[hidden.pk]), {"reason": "abuse"})
    assert response.status_code == 200 and Report.objects.get().message == hidden


def test_a_player_with_the_invite_reports_a_line_at_the_private_table():
    ann, bob, _table, _line = chat_room()
    secret = make_table(name="Secret", private=True)
    hidden = say(secret, bob, "you play like a fish")
    client = logged_in(ann)
    assert client.get(reverse("report_message", args=[hidden.pk])).status_code == 404
    assert client.get(f"/t/{secret.invite_code}/").status_code == 302
    assert client.get(reverse("report_message", args=[hidden.pk])).status_code == 200
