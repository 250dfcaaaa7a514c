"""Players' reports: of a player, of a message; every bad input refused with nothing stored, the
hourly limit, one waiting report per message."""

# ruff: noqa: RUF001  (Bulgarian text)
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Report
from games.social.refusals import Refused
from games.social.reports import REPORTS_PER_HOUR, report_message, report_player, reports_waiting
from tests.live.tablekit import make_player
from tests.social.kit import a_computer, chat_room, say

pytestmark = pytest.mark.django_db


def test_a_player_reports_another_with_a_reason_and_details():
    ann, bob, table, _line = chat_room()
    report = report_player(
        reporter=ann, reported=bob, reason="abuse", text="  rude all evening  ", table=table
    )
    report.refresh_from_db()
    assert (report.reporter, report.reported, report.table, report.message) == (ann, bob, table, None)
    assert (report.reason, report.text, report.status) == ("abuse", "rude all evening", Report.Status.OPEN)
    assert reports_waiting() == 1


def test_a_message_report_names_its_author_and_table():
    ann, bob, table, line = chat_room()
    report = report_message(reporter=ann, message=line.pk, reason="abuse", text="")
    assert (report.reported, report.message, report.table_id) == (bob, line, table.pk)


@pytest.mark.parametrize(
    "change, refusal",
    [
        ({"reason": ""}, "Choose a reason"),
        ({"reason": "boring"}, "Choose a reason"),
        ({"reason": None}, "Choose a reason"),
        ({"text": "x" * 501}, "at most 500 characters"),
        ({"text": "bad\x00text"}, "control characters"),
        ({"text": 12}, "must be text"),
        ({"reporter": None}, "Log in"),
    ],
)
def test_bad_input_about_a_player_is_refused_and_nothing_stored(change, refusal):
    ann, bob, _table, _line = chat_room()
    args = {"reporter": ann, "reported": bob, "reason": "abuse", "text": "", **change}
    with pytest.raises(Refused, match=refusal):
        report_player(**args)
    assert not Report.objects.exists()


def test_oneself_the_computer_and_nobody_cannot_be_reported():
    ann, _bob, _table, _line = chat_room()
    ghost = type(ann)(pk=999_999, username="ghost")  # never saved
    for reported, refusal in [
        (ann, "cannot report yourself"),
        (a_computer(), "computer's players"),
        (ghost, "no such player"),
        ("bob", "no such player"),
    ]:
        with pytest.raises(Refused, match=refusal):
            report_player(reporter=ann, reported=reported, reason="abuse")
    assert not Report.objects.exists()


def test_a_missing_or_deleted_message_or_ones_own_cannot_be_reported():
    ann, bob, table, line = chat_room()
    own = say(table, ann, "gl all")
    line.deleted_at = timezone.now()
    line.save()
    for message, refusal in [
        (line.pk, "no such message"),
        (line, "no such message"),
        (999_999, "no such message"),
        ("1", "no such message"),
        (own.pk, "cannot report yourself"),
    ]:
        with pytest.raises(Refused, match=refusal):
            report_message(reporter=ann, message=message, reason="abuse")
    assert not Report.objects.exists()


def test_one_waiting_report_per_reporter_and_message():
    ann, bob, table, line = chat_room()
    report_message(reporter=ann, message=line, reason="abuse")
    with pytest.raises(Refused, match="reported this message already"):
        report_message(reporter=ann, message=line, reason="spam")
    cem = make_player("cem")
    report_message(reporter=cem, message=line, reason="abuse")  # someone else may
    Report.objects.filter(reporter=ann).update(status=Report.Status.CLOSED)
    report_message(reporter=ann, message=line, reason="abuse")  # again, once the first was dealt with
    assert Report.objects.count() == 3


def test_a_reporter_sends_at_most_ten_reports_an_hour():
    ann, bob, _table, _line = chat_room()
    for _ in range(REPORTS_PER_HOUR):
        report_player(reporter=ann, reported=bob, reason="spam")
    with pytest.raises(Refused, match="10 reports in the last hour"):
        report_player(reporter=ann, reported=bob, reason="spam")
    assert Report.objects.count() == REPORTS_PER_HOUR
    Report.objects.update(created_at=timezone.now() - timedelta(minutes=61))
    report_player(reporter=ann, reported=bob, reason="spam")
    assert Report.objects.count() == REPORTS_PER_HOUR + 1


def test_the_refusal_is_in_the_players_language():
    from django.utils import translation

    ann, _bob, _table, _line = chat_room()
    with translation.override("bg"), pytest.raises(Refused) as refused:
        report_player(reporter=ann, reported=ann, reason="abuse")
    assert "себе си" in str(refused.value)
