"""Never stranded, in real browsers: ann loses her whole stack at a real table (stake 10: a hand
needs 20), and the table tells her why she sits out and offers the chips that deal her in; one
click on "Top up" and the next hand deals her in, with no "I'm back" to find."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import ARTIFACTS, LiveServer, sign_up_in
from tests.e2e.test_play_in_browser import DESKTOP, WAIT_MS, full_deck, stack

pytestmark = pytest.mark.browser

LOSING, WINNING = ["7H", "8D", "9S"], ["AH", "KH", "QH"]  # ann's and bob's hands in hand 2


def test_a_busted_player_is_offered_the_top_up_that_deals_her_in_again(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    url = site_server.url
    ann_context, bob_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    ann, bob = ann_context.new_page(), bob_context.new_page()
    try:
        sign_up_in(ann, url, "annbust")
        sign_up_in(bob, url, "bobbust")
        bob.goto(url + "/tables/new/")
        bob.fill("#id_name", "Bust table")
        bob.select_option("#id_stake", "10")
        bob.select_option("#id_seat_count", "2")
        bob.uncheck("#id_dark_play")
        bob.fill("#id_turn_seconds", "90")
        bob.locator("form.table-form button[type=submit]").click()
        bob.wait_for_url(re.compile(r"/table/\d+/$"))
        table_id = int(re.search(r"/table/(\d+)/", bob.url).group(1))
        for page, position, buy_in in ((bob, 1, "800"), (ann, 0, "200")):
            if page is ann:
                ann.goto(f"{url}/table/{table_id}/")
            seat = page.locator(f'#table-seats .seat[data-position="{position}"]')
            seat.locator("input[name=buy_in]").fill(buy_in)
            seat.locator(".sit-form button").click()
            expect(page.locator("#table-seats .seat.me")).to_have_count(1)

        # Hand 1: the dealer was drawn; hand 2's deal (the button moves to the other seat) is
        # stacked so that ann loses. Whoever acts first folds hand 1.
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "1")
        expect(ann.locator("#table-pot")).to_have_attribute("data-phase", "betting")
        ann_deals_first = ann.locator("#table-seats .seat.me .dealer").count() == 1
        first, second = (LOSING, WINNING) if ann_deals_first else (WINNING, LOSING)  # hand 2: N, D
        stack(url, table_id, full_deck([c for pair in zip(first, second) for c in pair]))
        opener = ann if ann.locator("#table-actions .verb-fold").count() else bob
        expect(opener.locator("#table-actions .verb-fold")).to_be_visible()
        opener.locator("#table-actions .verb-fold").click()

        # Hand 2: ann goes all in, bob calls; ann's 3 cards lose to bob's 31.
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "2")
        while not ann.locator("#table-pot .result").count():
            if ann.locator("#table-actions .raise-form").count():
                ann.locator("#table-actions .quick-raise", has_text="MAX").click()
                ann.locator("#table-actions .verb-raise").click()
            elif ann.locator("#table-actions .verb-call").count():
                ann.locator("#table-actions .verb-call").click()
            elif bob.locator("#table-actions .verb-call").count():
                bob.locator("#table-actions .verb-call").click()
            elif bob.locator("#table-actions .verb-raise").count():
                bob.locator("#table-actions .verb-raise").click()
            ann.wait_for_timeout(300)

        # Out of chips: told why, offered the least that deals her in and the buy-in again.
        rebuy = ann.locator("#table-actions .rebuy")
        expect(rebuy).to_contain_text("You have 0 chips; a hand here needs 20 (two stakes), so you sit out.")
        expect(rebuy.get_by_role("button", name="Top up: add 20")).to_be_visible()
        expect(rebuy.get_by_role("button", name="Buy in again: add 500")).to_be_visible()
        expect(ann.locator("#table-actions .add-form input[name=amount]")).to_have_value("20")
        ann.screenshot(path=str(ARTIFACTS / "rebuy-offer.png"))
        assert violations(ann) == []

        rebuy.get_by_role("button", name="Top up: add 20").click()
        expect(ann.locator("#table-actions .rebuy")).to_have_count(0)
        expect(ann.locator("#table-seats .seat.me")).not_to_contain_text("sitting out")
        # The next hand deals her in: her own three cards, face up.
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "3")
        expect(ann.locator("#table-seats .seat.me .card:not(.back)")).to_have_count(3)
    finally:
        ann_context.close()
        bob_context.close()
