"""Responsible play in the browser (issue 36): a loss limit set on the profile stops a buy-in at a
table; the responsible play page and the profile's tools pass axe."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import LiveServer, sign_up_in


def test_a_loss_limit_set_on_the_profile_stops_a_buy_in(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    context = browser.new_context()
    page = context.new_page()
    found: list[str] = []
    try:
        sign_up_in(page, url, "careful")
        page.goto(url + "/responsible-play/")
        expect(page.locator("h1")).to_have_text("Responsible play")
        found += [f"responsible play page: {v}" for v in violations(page)]

        page.goto(url + "/profile/")
        page.fill("#limit-day", "300")
        page.locator("form.loss-limit:has(#limit-day) button[type=submit]").click()
        expect(page.locator(".messages")).to_contain_text("Your loss limit for the day is now 300 chips.")
        expect(page.locator("#loss-room")).to_contain_text("300")
        found += [f"profile with a limit: {v}" for v in violations(page)]

        page.goto(url + "/lobby/")
        page.locator("#new-table summary").click()
        page.fill("#id_name", "Limit table")
        page.select_option("#id_stake", "10")
        page.get_by_role("button", name="Open the table").click()
        page.wait_for_url(re.compile(r"/table/\d+/$"))
        expect(page.locator("#table-connection")).to_have_text("connected")

        seat = page.locator('#table-seats .seat[data-position="0"]')
        seat.locator("input[name=buy_in]").fill("500")
        seat.get_by_role("button", name="Sit here").click()
        expect(page.locator("main")).to_contain_text("Your loss limit for the day (300 chips)")
        expect(page.locator("#table-seats .seat.me")).to_have_count(0)
        expect(page.locator("#nav-balance")).to_contain_text("1,000")

        seat.locator("input[name=buy_in]").fill("300")
        seat.get_by_role("button", name="Sit here").click()
        expect(page.locator("#table-seats .seat.me")).to_contain_text("careful")
        expect(page.locator("#nav-balance")).to_contain_text("700")
    finally:
        context.close()
    assert not found, "\n".join(found)


# The session's log-in and last reality check moved back: its interval has passed (the table reads
# the session again as the player's hand ends).
SESSION_BACK = """
from datetime import timedelta
from importlib import import_module
from django.conf import settings
from django.utils import timezone
from accounts.services.responsible import SESSION_CHECKED, SESSION_START
session = import_module(settings.SESSION_ENGINE).SessionStore(session_key="{key}")
moment = (timezone.now() - timedelta(minutes={minutes})).isoformat()
session[SESSION_START] = session[SESSION_CHECKED] = moment
session.save()
"""

# A hand of ``minutes`` the player played earlier today, as the records keep it.
PLAYED_TODAY = """
from accounts.models import User
from tests.live.test_play_breaks import _played_today
_played_today(User.objects.get(username="{name}"), minutes={minutes})
"""


SAID = """() => {
  window.saidLines = [];
  const region = document.getElementById("table-announce");
  const heard = new MutationObserver(() => window.saidLines.push(region.textContent));
  heard.observe(region, {childList: true, subtree: true});
}"""


def _session_back(site_server: LiveServer, context, minutes: int) -> None:
    key = next(c["value"] for c in context.cookies() if c["name"] == "sessionid")
    site_server.manage("shell", "-c", SESSION_BACK.format(key=key, minutes=minutes))


def _reality_check_every_15_minutes(page, url: str) -> None:
    page.goto(url + "/profile/")
    page.select_option("#reality-check-minutes", "15")
    page.get_by_role("button", name="Set the reminder").click()
    expect(page.locator(".messages")).to_contain_text("A reality check every 15 minutes.")


def _open_table(page, url: str, name: str) -> int:
    page.goto(url + "/tables/new/")
    page.fill("#id_name", name)
    page.select_option("#id_stake", "10")
    page.select_option("#id_seat_count", "2")
    page.uncheck("#id_dark_play")
    page.fill("#id_turn_seconds", "90")
    page.locator("form.table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/table/\d+/$"))
    return int(re.search(r"/table/(\d+)/", page.url).group(1))


def _sit(page, position: int, buy_in: str) -> None:
    seat = page.locator(f'#table-seats .seat[data-position="{position}"]')
    seat.locator("input[name=buy_in]").fill(buy_in)
    seat.locator(".sit-form button").click()
    expect(page.locator("#table-seats .seat.me")).to_have_count(1)


def test_a_reality_check_appears_at_the_table_between_hands(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=20_000)
    url = site_server.url
    ann_context, bob_context = browser.new_context(), browser.new_context()
    ann, bob = ann_context.new_page(), bob_context.new_page()
    found: list[str] = []
    try:
        sign_up_in(ann, url, "annreal")
        sign_up_in(bob, url, "bobreal")
        _reality_check_every_15_minutes(ann, url)
        table_id = _open_table(bob, url, "Reality table")
        _sit(bob, 1, "300")
        ann.goto(f"{url}/table/{table_id}/")
        _sit(ann, 0, "300")
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "1")
        expect(ann.locator("#table-pot")).to_have_attribute("data-phase", "betting")

        # Twenty minutes since logging in, while ann is in hand 1: nothing interrupts it.
        _session_back(site_server, ann_context, minutes=20)
        ann.wait_for_timeout(1500)
        expect(ann.locator("#table-reality-check")).to_have_count(0)

        # Everything the live region says from here (the next frame replaces a line already said).
        ann.evaluate(SAID)
        opener = ann if ann.locator("#table-actions .verb-fold").count() else bob
        opener.locator("#table-actions .verb-fold").click()
        check = ann.locator("#table-reality-check")
        expect(check).to_contain_text("You have been here 20 minutes this session.")
        expect(check).to_contain_text("Net chips in your hands since you logged in")
        ann.wait_for_function("() => window.saidLines.some((l) => l.includes('Reality check: 20 minutes'))")
        expect(check.get_by_role("button", name="Log out")).to_be_visible()
        # Sat out while she reads it: no hand 2 (bob alone is not a hand).
        expect(ann.locator("#table-seats .seat.me")).to_contain_text("sitting out")
        found += [f"reality check at the table: {v}" for v in violations(ann)]

        check.get_by_role("button", name="Continue").click()
        expect(ann.locator("#table-reality-check")).to_have_count(0)
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "2")
    finally:
        ann_context.close()
        bob_context.close()
    assert not found, "\n".join(found)


def test_a_time_out_from_the_reality_check_closes_the_room(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=20_000)
    url = site_server.url
    context = browser.new_context()
    page = context.new_page()
    try:
        sign_up_in(page, url, "annbreak")
        _reality_check_every_15_minutes(page, url)
        table_id = _open_table(page, url, "Break table")
        _sit(page, 0, "400")
        expect(page.locator("#nav-balance")).to_contain_text("600")

        _session_back(site_server, context, minutes=30)
        page.reload()  # alone at the table, between hands: the check shows at once
        check = page.locator("#table-reality-check")
        expect(check).to_contain_text("You have been here 30 minutes this session.")
        check.locator("select[name=period]").select_option("week")
        check.get_by_role("button", name="Take a break").click()

        expect(page.locator("#table-notice")).to_contain_text("You are taking a break from play")
        expect(page.locator("#table-connection")).not_to_have_text("connected")
        page.goto(url + "/lobby/")
        expect(page.locator("#nav-balance")).to_contain_text("1,000")  # the seat closed, chips back
        page.get_by_role("button", name="Play now").click()
        expect(page.locator(".messages")).to_contain_text("You are taking a break from play until")
        page.goto(f"{url}/table/{table_id}/")
        seat = page.locator('#table-seats .seat[data-position="0"]')
        seat.locator("input[name=buy_in]").fill("200")
        seat.locator(".sit-form button").click()
        expect(page.locator("#table-notice")).to_contain_text("You are taking a break from play until")
        expect(page.locator("#table-seats .seat.me")).to_have_count(0)
    finally:
        context.close()


def test_play_time_warnings_on_pages_and_at_the_table(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=20_000)
    url = site_server.url
    context = browser.new_context()
    page = context.new_page()
    found: list[str] = []
    try:
        sign_up_in(page, url, "annclock")
        site_server.manage("shell", "-c", PLAYED_TODAY.format(name="annclock", minutes=2))
        page.goto(url + "/profile/")
        page.fill("#play-minutes", "6")
        page.get_by_role("button", name="Set the play-time limit").click()
        expect(page.locator("#play-time-warning")).to_have_text(
            "5 minutes of play left today: after that, no new hands until tomorrow."
        )
        found += [f"page with the play-time warning: {v}" for v in violations(page)]

        _open_table(page, url, "Clock table")
        expect(page.locator("#table-care")).to_contain_text("5 minutes of play left today")
        expect(page.locator("#table-announce")).to_contain_text("5 minutes of play left today")
        found += [f"table with the play-time warning: {v}" for v in violations(page)]
    finally:
        context.close()
    assert not found, "\n".join(found)
