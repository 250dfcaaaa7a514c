"""The report flow in a real browser: a player reports another from the player's page (a plain
form, a thank-you); a staff member sees the report waiting on the dashboard,
opens it in the admin and closes it with an outcome; the dashboard then has none waiting."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LiveServer
from tests.e2e.test_play_in_browser import DESKTOP, open_person, sign_up

pytestmark = pytest.mark.browser

PASSWORD = "Mod-e2e-Pass-83"


def test_a_player_reports_another_and_a_staff_member_closes_it(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    rita, rex = (open_person(browser, name, DESKTOP) for name in ("rita", "rex"))
    for person in (rita, rex):
        sign_up(person, url)

    page = rita.page
    page.goto(url + "/players/rex/")
    page.get_by_role("link", name="Report this player").click()
    page.wait_for_url("**/players/rex/report/")
    page.get_by_label("cheating or collusion").check()
    page.get_by_label("Details (optional)").fill("Folds to his friend every time.")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator("#report-thanks")).to_have_text("Thank you, the staff will look at it.")

    site_server.manage(
        "createsuperuser",
        "--noinput",
        "--username",
        "moddy",
        "--email",
        "moddy@example.com",
        env={"DJANGO_SUPERUSER_PASSWORD": PASSWORD},
    )
    staff = browser.new_context(viewport=DESKTOP, locale="en-GB").new_page()
    staff.goto(url + "/admin/login/?next=/admin/room/")
    staff.fill("#id_username", "moddy")
    staff.fill("#id_password", PASSWORD)
    staff.locator("input[type=submit]").click()
    staff.wait_for_url("**/admin/room/")
    expect(staff.locator("#reports-waiting")).to_have_text("1 report waiting")
    staff.get_by_role("link", name="1 report waiting").click()
    staff.locator("#result_list tbody tr").first.locator("a").first.click()
    staff.wait_for_url(re.compile(r"/admin/games/report/\d+/change/"))
    expect(staff.locator("#report-reason")).to_have_text("cheating or collusion")
    expect(staff.locator("#report-text")).to_contain_text("Folds to his friend every time.")
    staff.get_by_role("textbox", name="Reason").fill("Watched his hands: nothing wrong.")
    staff.get_by_role("button", name="Close the report").click()
    expect(staff.locator(".messagelist")).to_contain_text("The report is closed.")
    expect(staff.locator("#report-status")).to_contain_text("dealt with")
    expect(staff.locator("#report-status")).to_contain_text("Watched his hands: nothing wrong.")
    staff.screenshot(path="test-artifacts/staff-report.png", full_page=True)

    staff.goto(url + "/admin/room/")
    # The figures are at most 5 s old and the page asks for them every 10 s: no reload needed.
    expect(staff.locator("#reports-waiting")).to_contain_text("No reports waiting.", timeout=30_000)
