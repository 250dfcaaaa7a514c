"""The staff's dashboard and a player's whole picture in a real browser, in English and Bulgarian.

Two players sign up, open a table through the lobby, sit down and play a hand (one passes); a
superuser made with manage.py logs in to the staff panel and finds the room as it is: the table
in play, both players seated and online, the hand in the last five minutes, the books balanced.
When one player closes their table the open dashboard says so by itself (htmx polls it). The
player's whole picture lists the hand with a replay that opens.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import LiveServer
from tests.e2e.test_play_in_browser import DESKTOP, Person, open_person, pass_the_first_hand, sign_up

pytestmark = pytest.mark.browser

PASSWORD = "Staff-e2e-Pass-57"


@pytest.fixture(scope="module")
def played(site_server: LiveServer, browser: Browser) -> dict[str, object]:
    """ann and bob at one table after a hand; their pages stay open (their sockets too)."""
    expect.set_options(timeout=10_000)
    url = site_server.url
    ann, bob = (open_person(browser, name, DESKTOP) for name in ("ann", "bob"))
    for person in (ann, bob):
        sign_up(person, url)
    ann.page.goto(url + "/lobby/")
    ann.page.locator("#new-table summary").click()
    ann.page.fill("#id_name", "Staff watch")
    ann.page.select_option("#id_seat_count", "2")
    ann.page.fill("#id_turn_seconds", "120")  # the next hands wait long for their moves
    ann.page.get_by_role("button", name="Open the table").click()
    ann.page.wait_for_url(re.compile(r"/table/\d+/$"))
    table_url = ann.page.url
    for person, position in ((ann, 0), (bob, 1)):
        if person is bob:
            bob.page.goto(table_url)
        seat = person.page.locator(f'#table-seats .seat[data-position="{position}"]')
        seat.locator("input[name=buy_in]").fill("500")
        seat.get_by_role("button", name="Sit here").click()
        expect(person.page.locator("#table-seats .seat.me")).to_contain_text(person.name)
    pass_the_first_hand([ann, bob])
    site_server.manage(
        "createsuperuser",
        "--noinput",
        "--username",
        "boss",
        "--email",
        "boss@example.com",
        env={"DJANGO_SUPERUSER_PASSWORD": PASSWORD},
    )
    return {"ann": ann, "bob": bob, "table_url": table_url}


def staff_page(browser: Browser, url: str, *, locale: str) -> Page:
    page = browser.new_context(viewport=DESKTOP, locale=locale).new_page()
    page.goto(url + "/admin/login/?next=/admin/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", PASSWORD)
    page.locator("input[type=submit]").click()
    page.wait_for_url(url + "/admin/")
    return page


def test_the_dashboard_shows_the_room_and_follows_it_by_itself(
    site_server: LiveServer, browser: Browser, played: dict[str, object]
) -> None:
    page = staff_page(browser, site_server.url, locale="en-GB")
    page.get_by_role("link", name="The room now").click()
    page.wait_for_url("**/admin/room/")
    expect(page.locator("h1")).to_have_text("The room now")
    expect(page.locator("#tables-in-play")).to_have_text("1")
    expect(page.locator("#players-seated")).to_have_text("2")
    expect(page.locator("#players-online")).to_contain_text("2 (2 sockets open)")
    # Hand 1 and any since (the next one began as hand 1 ended).
    expect(page.locator("#hands-5")).to_contain_text(re.compile(r"\((1 hand|[2-9] hands)\)"))
    expect(page.locator("#chips-on-seats")).to_have_text("1,000")
    expect(page.locator("#audit-verdict")).to_contain_text("The books balance")
    expect(page.locator("#room-reports")).to_contain_text("No reports waiting.")
    page.screenshot(path="test-artifacts/staff-dashboard.png", full_page=True)

    bob: Person = played["bob"]  # type: ignore[assignment]
    bob.page.goto(site_server.url + "/lobby/")  # his table's page closes, and its socket
    # No reload: the page asks for its figures every 10 s, and they are at most 5 s old.
    expect(page.locator("#players-online")).to_contain_text("1 (1 socket open)", timeout=30_000)
    expect(page.locator("#players-seated")).to_have_text("2")  # he still has his seat
    bob.page.goto(played["table_url"])  # type: ignore[arg-type]
    expect(bob.page.locator("#table-seats .seat.me")).to_contain_text("bob")


def test_the_dashboard_in_bulgarian(
    site_server: LiveServer, browser: Browser, played: dict[str, object]
) -> None:
    page = staff_page(browser, site_server.url, locale="bg-BG")
    page.get_by_role("link", name="Залата сега").click()
    expect(page.locator("h1")).to_have_text("Залата сега")
    expect(page.locator("#room-tables caption")).to_have_text("Маси и играчи")
    expect(page.locator("#chips-on-seats")).to_have_text("1\xa0000")
    expect(page.locator("#audit-verdict")).to_contain_text("Сметките са равни")
    expect(page.locator("#room-reports")).to_contain_text("Няма чакащи сигнали.")
    page.get_by_role("link", name="Признаци, които заслужават поглед").click()
    expect(page.locator("h1")).to_have_text("Признаци, които заслужават поглед")
    expect(page.locator("#sat-together")).to_contain_text("Няма.")


def _open_picture(page: Page, url: str, name: str, *, users: str, picture: str) -> None:
    page.get_by_role("link", name=users).first.click()
    page.locator("#searchbar").fill(name)
    page.locator("#searchbar").press("Enter")
    page.get_by_role("link", name=name, exact=True).click()
    page.get_by_role("link", name=picture).click()
    page.wait_for_url(re.compile(r"/admin/games/playedhand/player/\d+/$"))


def test_a_players_whole_picture_with_the_hand_and_its_replay(
    site_server: LiveServer, browser: Browser, played: dict[str, object]
) -> None:
    page = staff_page(browser, site_server.url, locale="en-GB")
    _open_picture(page, site_server.url, "ann", users="Users", picture="The whole picture")
    expect(page.locator("h1")).to_have_text("The whole picture of ann")
    expect(page.locator("#seats")).to_contain_text("Staff watch")
    # Hand 1 with its replay; the next one, dealt as it ended, has none while it is in play.
    expect(
        page.locator("#hands tr", has_text="finished").get_by_role("link", name="Replay")
    ).not_to_have_count(0)
    expect(page.locator("#hands tr", has_text="in play").get_by_role("link", name="Replay")).to_have_count(0)
    expect(page.locator("#table-mates")).to_contain_text("bob")
    expect(page.locator("#table-mates")).to_contain_text(re.compile(r"\d+ hands? together"))
    expect(page.locator("#ledger")).to_contain_text("buy-in")
    page.screenshot(path="test-artifacts/staff-player-picture.png", full_page=True)
    page.locator("#hands").get_by_role("link", name="Replay").last.click()
    page.wait_for_url(re.compile(r"/hands/\d+/$"))
    expect(page.locator("main")).to_contain_text("ann")


def test_a_players_whole_picture_in_bulgarian(
    site_server: LiveServer, browser: Browser, played: dict[str, object]
) -> None:
    page = staff_page(browser, site_server.url, locale="bg-BG")
    _open_picture(page, site_server.url, "bob", users="Потребители", picture="Цялата картина")
    expect(page.locator("h1")).to_have_text("Цялата картина за bob")
    expect(page.locator("#table-mates")).to_contain_text(re.compile(r"\d+ общ(о|и) раздавани(е|я)"))
    expect(page.locator("#hands")).to_contain_text("Преглед")
    expect(page.locator("#seats")).to_contain_text("място 2")
