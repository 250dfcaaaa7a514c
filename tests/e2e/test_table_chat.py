"""Table chat in real browsers: two players and a spectator at one table. A line from one shows on
the other two pages; an ignored player's lines vanish for the ignorer only; six quick lines mute
their sender with a notice; a staff deletion removes a line from every page live."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import LiveServer
from tests.e2e.test_play_in_browser import DESKTOP, WAIT_MS, Person, open_person, shot, sign_up

pytestmark = pytest.mark.browser


def say(person: Person, text: str) -> None:
    # Clicked, not Enter: the game may take the focus for a move when the turn comes.
    person.page.locator("#chat-text").fill(text)
    person.page.locator("#chat-form button[type=submit]").click()


def lines(person: Person):
    return person.page.locator("#chat-lines .chat-line")


def sit(person: Person, position: int) -> None:
    expect(person.page.locator("#table-connection")).to_have_text("connected")
    seat = person.page.locator(f'#table-seats .seat[data-position="{position}"]')
    for _ in range(3):
        if person.page.locator("#table-seats .seat.me").count():
            break
        seat.locator("input[name=buy_in]").fill("500")
        seat.get_by_role("button", name="Sit here").click()
        try:
            expect(person.page.locator("#table-seats .seat.me")).to_have_count(1, timeout=5_000)
            break
        except AssertionError:
            continue
    expect(person.page.locator("#table-seats .seat.me")).to_have_count(1)


def delete_line(url: str, message_id: int) -> None:
    request = urllib.request.Request(
        f"{url}/test-hooks/chat/{message_id}/deleted/", data=b"{}", method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read())["deleted"] == message_id


def test_chat_between_two_players_and_a_spectator(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    ann, bob, eve = (open_person(browser, name, DESKTOP) for name in ("ann", "bob", "eve"))
    for person in (ann, bob, eve):
        sign_up(person, url)
    ann.page.goto(url + "/lobby/")
    ann.page.locator("#new-table summary").click()
    ann.page.fill("#id_name", "Chat table")
    ann.page.select_option("#id_seat_count", "2")
    ann.page.get_by_role("button", name="Open the table").click()
    ann.page.wait_for_url(re.compile(r"/table/\d+/$"))
    table_url = ann.page.url
    sit(ann, 0)
    bob.page.goto(table_url)
    sit(bob, 1)
    eve.page.goto(table_url)
    expect(eve.page.locator("#table-connection")).to_have_text("connected")
    expect(eve.page.locator("#chat-lines")).to_have_attribute("class", "chat-lines")
    expect(eve.page.get_by_role("log", name="Chat")).to_be_visible()

    # ---- a line from ann shows on bob's and eve's pages (and her own), escaped.
    say(ann, "hello <b>table</b>? no: hello table & all")
    expect(ann.page.locator("#chat-notice")).to_have_class(re.compile("error"))  # markup is refused
    # ... and what she typed is still there to mend, not wiped.
    expect(ann.page.locator("#chat-text")).to_have_value("hello <b>table</b>? no: hello table & all")
    say(ann, "hello table & all")
    for person in (ann, bob, eve):
        expect(lines(person).filter(has_text="hello table & all")).to_have_count(1, timeout=WAIT_MS)
    expect(ann.page.locator("#chat-text")).to_have_value("")
    expect(bob.page.locator("#chat-lines .chat-name", has_text="ann")).to_have_attribute(
        "href", "/players/ann/"
    )
    line_id = int(lines(bob).first.get_attribute("id").removeprefix("chat-msg-"))
    # Reporting the line opens the form beside the table (a new tab): bob is not taken off it mid-hand.
    with bob.page.context.expect_page() as opened:
        bob.page.locator(f"#chat-msg-{line_id} .chat-report").click()
    report_page = opened.value
    report_page.wait_for_load_state()
    assert f"/report/message/{line_id}/" in report_page.url
    assert bob.page.url == table_url
    report_page.close()
    # The chat with a line in it, a refusal shown on ann's page: nothing against WCAG 2.2 A/AA.
    assert violations(bob.page) == []
    shot(bob, "chat-desktop.png")

    # ---- eve ignores ann: ann's lines go from eve's page only, ann's next line never shows there.
    eve.page.locator(f"#chat-msg-{line_id} .chat-ignore").click()
    expect(lines(eve)).to_have_count(0)
    say(ann, "second line")
    expect(lines(bob).filter(has_text="second line")).to_have_count(1)
    expect(lines(ann).filter(has_text="second line")).to_have_count(1)
    eve.page.wait_for_timeout(500)
    expect(lines(eve)).to_have_count(0)
    eve.page.reload()  # kept across pages
    expect(eve.page.locator("#table-connection")).to_have_text("connected")
    expect(lines(eve)).to_have_count(0)

    # ---- a staff deletion removes the line from every page, live.
    delete_line(url, line_id)
    for person in (ann, bob):
        expect(person.page.locator(f"#chat-msg-{line_id}")).to_have_count(0)
    expect(lines(bob).filter(has_text="second line")).to_have_count(1)

    # ---- bob sends six quick lines: the sixth mutes him with a notice, and is not shown.
    bob.page.locator(".chat-phrases button", has_text="Good luck").click()
    for n in range(2, 6):
        say(bob, f"quick {n}")
    expect(lines(ann).filter(has_text="quick 5")).to_have_count(1)
    say(bob, "quick 6")
    expect(bob.page.locator("#chat-notice")).to_contain_text("muted for 60 seconds")
    expect(lines(ann).filter(has_text="Good luck")).to_have_count(1)
    ann.page.wait_for_timeout(500)
    expect(lines(ann).filter(has_text="quick 6")).to_have_count(0)
    for person in (ann, bob, eve):
        assert not person.errors, person.errors


PHONE = {"width": 390, "height": 844}


def test_on_a_phone_the_chat_is_folded_under_the_table(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    kim = open_person(browser, "kim", PHONE)
    sign_up(kim, url)
    kim.page.goto(url + "/lobby/")
    kim.page.locator("#new-table summary").click()
    kim.page.fill("#id_name", "Phone chat")
    kim.page.get_by_role("button", name="Open the table").click()
    kim.page.wait_for_url(re.compile(r"/table/\d+/$"))
    expect(kim.page.locator("#table-connection")).to_have_text("connected")
    expect(kim.page.locator("#chat-text")).to_be_hidden()  # folded: the table keeps the screen
    kim.page.locator("#chat-box summary").click()
    say(kim, "from my phone")
    expect(lines(kim).filter(has_text="from my phone")).to_have_count(1)
    wide = kim.page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], wide
    assert violations(kim.page) == []
    shot(kim, "chat-phone.png")
    assert not kim.errors, kim.errors
