"""Every page fits a phone's width in both languages, and axe-core finds no violation of WCAG 2.2 A/AA
in it (tests/e2e/axe_kit.py): nothing makes the whole page scroll sideways
(the rules' and the calculator's tables, the hand list and the profile once did). Every state of a
page the test can reach counts: the table in its dark round, on your turn with the fair-deck badge
open, at a result, seated alone waiting for players, and as a spectator sees it; the
fair page checking a stored hand (its 32 cards once ran 1,467 px wide on a phone, 1,537 px at
1,280); a hand's replay."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import LiveServer, sign_up_in
from tests.e2e.practice_kit import WAIT_MS, betting_turn, click_move, start_practice

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 860}
PUBLIC = ["/", "/lobby/", "/rules/", "/rules/faq/", "/fair/", "/rules/calculator/?cards=7C+AC+KC"]
PUBLIC += ["/responsible-play/"]
PUBLIC += ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/no-such-page/"]
SIGNED_IN = ["/practice/", "/profile/", "/hands/", "/accounts/password/change/", "/accounts/email/"]


def _too_wide(page: Page, width: int = PHONE["width"]) -> list[str]:
    """The page's overflow, with the outermost elements past the right edge to say where."""
    return page.evaluate(
        """(width) => document.documentElement.scrollWidth <= width ? [] :
             [...document.querySelectorAll('body *')]
               .filter(e => e.getBoundingClientRect().right > width + 1)
               .slice(0, 3)
               .map(e => `${e.tagName}.${e.className} to ${Math.round(e.getBoundingClientRect().right)}`)""",
        width,
    )


def _too_wide_on_phones(page: Page) -> list[str]:
    """This state of the page at both phone sizes (the page stays open: it is not loaded again)."""
    wide = []
    for size in (SMALL_PHONE, PHONE):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
        wide += [f"at {size['width']}: {where}" for where in _too_wide(page, size["width"])]
    return wide


@pytest.mark.parametrize("language", ["en", "bg"])
def test_no_page_is_wider_than_a_phone(site_server: LiveServer, browser: Browser, language: str) -> None:
    context = browser.new_context(
        viewport=PHONE, locale=language, extra_http_headers={"Accept-Language": language}
    )
    page = context.new_page()
    try:
        wide, broken = {}, {}  # broken: what axe-core finds against WCAG 2.2 A/AA (axe_kit.py)
        for path in PUBLIC:
            page.goto(site_server.url + path)
            wide[path] = _too_wide(page)
            broken[path] = violations(page)
        name = f"narrow{language}"
        sign_up_in(page, site_server.url, name)
        assert page.locator("html").get_attribute("lang") == language
        for path in SIGNED_IN:
            page.goto(site_server.url + path)
            wide[path] = _too_wide(page)
            broken[path] = violations(page)
        page.goto(site_server.url + "/")
        wide["/ (signed in)"] = _too_wide(page)
        broken["/ (signed in)"] = violations(page)

        # The table against the computer: the dark round, a betting turn with the fair-deck badge
        # open, the result of a folded hand.
        table_id = start_practice(page, site_server.url)
        expect(page.locator("#table-pot")).to_have_attribute("data-phase", "dark", timeout=WAIT_MS)
        wide["table, dark round"] = _too_wide_on_phones(page)
        broken["table, dark round"] = violations(page)
        betting_turn(page)
        # The seed hash is off the felt: the fair-deck badge opens it, the nonce and the check's link.
        number = page.locator("#table-pot").get_attribute("data-hand")  # the computer may have ended one
        assert not re.search(r"[0-9a-f]{64}", page.locator("#table-pot").inner_text())
        page.locator("#table-pot .fair-badge summary").click()
        panel = page.locator("#table-pot .fair-panel")
        expect(panel).to_be_visible()
        assert re.search(r"[0-9a-f]{64}", panel.inner_text())
        expect(panel.get_by_role("link")).to_have_attribute("href", f"/fair/?hand={table_id}-{number}#stored")
        wide["table, your turn, fair-deck badge open"] = _too_wide_on_phones(page)
        broken["table, your turn, fair-deck badge open"] = violations(page)
        click_move(page, "fold")
        expect(page.locator("#table-pot .result")).to_be_visible(timeout=WAIT_MS)
        wide["table, result"] = _too_wide_on_phones(page)
        broken["table, result"] = violations(page)

        # While the practice table plays on, the hand's seed series runs: the fair page says so.
        page.goto(f"{site_server.url}/fair/?hand={table_id}-{number}#stored")
        expect(page.locator(".rc-hand-check")).to_have_attribute("data-hand-check", "sealed")
        wide["/fair/ with a hand of a running series"] = _too_wide_on_phones(page)
        # A new practice game closes the old table, which ends its series and reveals the seed.
        start_practice(page, site_server.url)

        # The fair page checking that stored hand, on a phone and at 1,280.
        page.goto(f"{site_server.url}/fair/?hand={table_id}-{number}#stored")
        expect(page.locator(".rc-hand-check .rc-compare .rc-hand .card")).not_to_have_count(0)
        expect(page.locator(".rc-hand-check code:empty")).to_have_count(0)  # "Client seeds: , ·" once
        wide["/fair/ with a stored hand"] = _too_wide_on_phones(page)
        broken["/fair/ with a stored hand"] = violations(page)
        page.set_viewport_size(DESKTOP)
        wide["/fair/ with a stored hand at 1,280"] = _too_wide(page, DESKTOP["width"])
        page.set_viewport_size(PHONE)

        # The hand's replay, from My hands (a lost one: closing the table may have cancelled a hand).
        page.goto(site_server.url + "/hands/?result=lost")
        page.get_by_role("link", name="Replay" if language == "en" else "Преглед").first.click()
        expect(page.locator(".hh-replay")).to_be_visible()
        wide["a hand's replay"] = _too_wide_on_phones(page)
        broken["a hand's replay"] = violations(page)

        # A table of the lobby with one player seated, waiting for a second; and the same table
        # as another player watching it sees it.
        page.goto(site_server.url + "/lobby/")
        page.locator("#new-table summary").click()
        page.fill("#id_name", f"Waiting {language}")
        page.select_option("#id_stake", "10")
        page.select_option("#id_seat_count", "6")
        page.get_by_role("button", name=re.compile("Open the table|Отвори масата")).click()
        page.wait_for_url(re.compile(r"/table/\d+/$"))
        seat = page.locator('#table-seats .seat[data-position="0"]')
        seat.locator("input[name=buy_in]").fill("500")
        seat.locator("button").first.click()
        expect(page.locator("#table-seats .seat.me")).to_have_count(1, timeout=WAIT_MS)
        wide["table, seated and waiting for players"] = _too_wide_on_phones(page)
        broken["table, seated and waiting for players"] = violations(page)
        visitor = browser.new_context(
            viewport=PHONE, locale=language, extra_http_headers={"Accept-Language": language}
        )
        try:
            watcher = visitor.new_page()
            sign_up_in(watcher, site_server.url, f"watch{language}")
            watcher.goto(page.url)
            expect(watcher.locator("#table-seats .seat")).to_have_count(6)
            expect(watcher.locator("#table-seats .seat.me")).to_have_count(0)
            wide["table, a spectator"] = _too_wide_on_phones(watcher)
            broken["table, a spectator"] = violations(watcher)
        finally:
            visitor.close()
        assert {path: where for path, where in wide.items() if where} == {}
        assert {path: found for path, found in broken.items() if found} == {}
    finally:
        context.close()
