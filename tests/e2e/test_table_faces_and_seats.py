"""Issue 35's smaller findings and faces, in real browsers: a face chosen on the profile shows at
the seat, in the lobby and on the player page; opening a table offers its creator the seat at once;
tables nobody sits at leave the lobby (but one per stake); on a phone your seat is below your
opponent's and the header's links stay on the screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import ARTIFACTS, LiveServer, sign_up_in
from tests.e2e.practice_kit import WAIT_MS, betting_turn, start_practice

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 860}
PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]


def open_table(page: Page, url: str, name: str, stake: str = "50") -> int:
    page.goto(url + "/tables/new/")
    page.fill("#id_name", name)
    page.select_option("#id_stake", stake)
    page.locator("form.table-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/table/\d+/$"))
    return int(re.search(r"/table/(\d+)/", page.url).group(1))


def lobby_names(page: Page, url: str) -> list[str]:
    page.goto(url + "/lobby/")
    return page.locator("#lobby-rows td.name a").all_inner_texts()


def test_a_face_is_chosen_and_an_opened_table_offers_its_seat_and_leaves_the_lobby_while_empty(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    url = site_server.url
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        sign_up_in(page, url, "facefox")
        page.goto(url + "/profile/#face")
        page.locator(".face-choice", has_text="fox").click()
        page.locator("#save-face").click()
        expect(page.locator(".face-choice:has(input[value=fox]) input")).to_be_checked()
        assert violations(page) == []
        page.screenshot(path=str(ARTIFACTS / "faces-profile.png"), full_page=True)

        # Two tables at one stake, nobody seated: the lobby lists the older one only.
        first = open_table(page, url, "Fox first")
        offer = page.locator("#seat-offer")
        expect(offer).to_be_visible()
        expect(offer).to_contain_text("Your table is open.")
        assert violations(page) == []
        open_table(page, url, "Fox second")
        names = lobby_names(page, url)
        assert "Fox first" in names and "Fox second" not in names, names

        # The offer seats her with one click, then goes; her face is at her seat.
        page.goto(f"{url}/table/{first}/")
        page.locator("#seat-offer button").click()
        expect(page.locator("#table-seats .seat.me")).to_have_count(1)
        expect(page.locator("#seat-offer")).to_be_hidden()
        face = page.locator("#table-seats .seat.me img.face")
        expect(face).to_have_attribute("src", re.compile(r"faces/fox"))
        assert violations(page) == []

        # Somebody sits at the first table now: the second, still empty, is stake 50's table to sit
        # down at, so both are listed.
        names = lobby_names(page, url)
        assert "Fox first" in names and "Fox second" in names, names
        expect(page.locator("#lobby-rows tr", has_text="Fox first").locator("img.face")).to_have_count(1)
        assert violations(page) == []
        page.goto(url + "/players/facefox/")
        expect(page.locator("h1 img.face")).to_have_attribute("src", re.compile(r"faces/fox"))
        assert violations(page) == []
    finally:
        context.close()


def test_on_a_phone_your_seat_is_below_your_opponent_and_the_header_fits(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    context = browser.new_context(viewport=PHONES[0])
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "phoneseat")
        start_practice(page, site_server.url)
        betting_turn(page)
        for size in PHONES:
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            where = page.evaluate(
                """() => {
                  const box = (e) => e.getBoundingClientRect();
                  const me = box(document.querySelector("#table-seats .seat.me"));
                  const others = [...document.querySelectorAll("#table-seats .seat:not(.me):not(.empty)")]
                    .map(box);
                  const links = [...document.querySelectorAll(".site-header a, .site-header button")]
                    .filter((e) => e.offsetParent !== null).map(box);
                  return { me_top: me.top, others_bottom: Math.max(...others.map((b) => b.bottom)),
                           right: Math.max(...links.map((b) => b.right)),
                           left: Math.min(...links.map((b) => b.left)),
                           width: document.documentElement.scrollWidth };
                }"""
            )
            page.screenshot(path=str(ARTIFACTS / f"phone-seat-{size['width']}.png"))
            assert where["me_top"] >= where["others_bottom"], (size, where)
            assert where["left"] >= 0 and where["right"] <= size["width"], (size, where)
            assert where["width"] <= size["width"], (size, where)
            expect(page.locator("#nav-balance")).to_be_visible()  # the wallet stays in the header
        # The links are behind the menu button, each one on the screen when it is opened.
        page.locator(".site-header .menu-switch").click()
        links = page.locator("#site-nav a")
        expect(links.first).to_be_visible()
        for box in [links.nth(i).bounding_box() for i in range(links.count())]:
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONES[-1]["width"], box
        assert violations(page) == []
        page.screenshot(path=str(ARTIFACTS / "phone-menu-open.png"))
        page.keyboard.press("Escape")
        expect(links.first).to_be_hidden()
    finally:
        context.close()
