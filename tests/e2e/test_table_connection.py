"""The table as a player lives it between the clicks: the connection dropping and coming back,
leaving mid-hand, and the header's wallet following the seat."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LiveServer
from tests.e2e.test_play_in_browser import DESKTOP, WAIT_MS, open_person, sign_up, wait_for_hand

pytestmark = pytest.mark.browser


def test_moves_wait_while_the_socket_is_down_and_leaving_mid_hand_asks_first(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    dan, eve = (open_person(browser, name, DESKTOP) for name in ("dan", "eve"))
    # Every table socket goes through a route of the test's: it can drop them all and refuse new
    # ones, as a network that went away would (Chromium's offline mode leaves open sockets alone).
    network = {"down": False, "sockets": []}

    def through_the_network(ws) -> None:
        if network["down"]:
            ws.close(code=1012)
            return
        ws.connect_to_server()
        network["sockets"].append(ws)

    for person in (dan, eve):
        sign_up(person, url)
        person.page.route_web_socket(re.compile(r"/ws/table/"), through_the_network)
    dan.page.goto(url + "/lobby/")
    dan.page.locator("#new-table summary").click()
    dan.page.fill("#id_name", "Connection table")
    dan.page.select_option("#id_seat_count", "2")
    dan.page.get_by_role("button", name="Open the table").click()
    dan.page.wait_for_url(re.compile(r"/table/\d+/$"))
    table_url = dan.page.url
    # Each sits once the page's socket is through the test's route (a sit sent while the route was
    # still being set up was lost under load in CI).
    expect(dan.page.locator("#table-connection")).to_have_text("connected")
    seat = dan.page.locator('#table-seats .seat[data-position="0"]')
    seat.locator("input[name=buy_in]").fill("500")
    seat.get_by_role("button", name="Sit here").click()
    expect(dan.page.locator("#nav-balance")).to_contain_text("500", timeout=WAIT_MS)
    eve.page.goto(table_url)
    expect(eve.page.locator("#table-connection")).to_have_text("connected")
    seat = eve.page.locator('#table-seats .seat[data-position="1"]')
    for _ in range(3):
        # A sit sent while the test's route still joins the page's socket to the server can be
        # lost under load (seen only through this route, twice in CI): the form stays, and the
        # player presses it again as a person would. Once seated the form is gone.
        if eve.page.locator("#table-seats .seat.me").count():
            break
        seat.locator("input[name=buy_in]").fill("500")
        seat.get_by_role("button", name="Sit here").click()
        try:
            expect(eve.page.locator("#table-seats .seat.me")).to_have_count(1, timeout=5_000)
            break
        except AssertionError:
            continue
    expect(eve.page.locator("#table-seats .seat.me")).to_have_count(1)
    wait_for_hand([dan, eve], 1)

    # ---- the network drops: the moves are disabled and the page says why; back within a second.
    move = "#table-actions .verb-form button"
    actor = next(p for p in (dan, eve) if p.page.locator(move).count())
    page = actor.page
    network["down"] = True
    for ws in network["sockets"]:
        ws.close(code=1012)
    expect(page.locator("#table-offline")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(move).first).to_be_disabled()
    page.locator(move).first.click(force=True)  # nothing is sent, or queued
    assert any('"verb":"sit"' in f.replace(" ", "") for f in actor.sent)  # frames sent are seen
    sent_before = len(actor.sent)
    page.wait_for_timeout(1500)  # a few refused reconnects
    network["down"] = False
    back = time.monotonic()
    expect(page.locator("#table-connection")).to_have_text("connected", timeout=5_000)
    assert time.monotonic() - back < 2.5  # retried within a second while in sight (with margin)
    expect(page.locator("#table-offline")).to_be_hidden()
    expect(page.locator(move).first).to_be_enabled()
    assert not any('"verb"' in f for f in actor.sent[sent_before:])

    # ---- leaving mid-hand asks first; dismissed, nothing happens.
    other = eve if actor is dan else dan
    leave = other.page.locator("#table-actions .leave-form button")
    other.page.once("dialog", lambda dialog: dialog.dismiss())
    leave.click()
    other.page.wait_for_timeout(500)
    expect(other.page.locator("#table-seats .seat.me")).not_to_contain_text("leaving")
    # Accepted, the hand is folded at once and the page says what happens next, with no Leave.
    other.page.once("dialog", lambda dialog: dialog.accept())
    leave.click()
    expect(other.page.locator("#table-pot")).to_contain_text(f"Hand 1: {actor.name} won", timeout=WAIT_MS)
    # Settled: the seat is freed and the header's wallet has the chips back (1,000 less the ante).
    expect(other.page.locator("#table-seats .seat.me")).to_have_count(0, timeout=WAIT_MS)
    expect(other.page.locator("#nav-balance")).to_contain_text("990", timeout=WAIT_MS)
