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
