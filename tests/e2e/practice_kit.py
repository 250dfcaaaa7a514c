"""Helpers for browser tests that play the computer: a practice table starts at once, so a page
reaches every state of the table (the dark round, a betting turn, a result) without a second player."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Page, expect

WAIT_MS = 20_000


def start_practice(page: Page, url: str) -> int:
    """An easy game against the computer; the table's id."""
    if "/practice/" not in page.url:
        page.goto(url + "/practice/")
    page.locator("main form.practice-levels button[value=easy]").click()
    page.wait_for_url(re.compile(r"/table/\d+/$"))
    expect(page.locator("#table-seats .seat.me")).to_have_count(1)
    return int(re.search(r"/table/(\d+)/", page.url).group(1))


def betting_turn(page: Page, *, timeout: float = 60) -> None:
    """Play on (no dark bets) until it is this player's turn in a betting round, own cards dealt."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.locator("#table-actions .verb-decline").count():
            click_move(page, "decline")
        elif (
            page.locator("#table-actions .moves .verb-fold").count()
            and page.locator("#table-seats .seat.me .card:not(.back)").count() == 3
        ):
            return
        page.wait_for_timeout(150)
    raise AssertionError("no betting turn came")


def click_move(page: Page, verb: str) -> None:
    """Press a move's button and wait for the table to move on."""
    version = page.locator("#table-version").get_attribute("data-version")
    page.locator(f"#table-actions button.verb-{verb}").click()
    expect(page.locator("#table-version")).not_to_have_attribute("data-version", version or "")


def hand_over(page: Page, number: int) -> None:
    """Fold this hand at the next betting turn and wait for its result."""
    betting_turn(page)
    click_move(page, "fold")
    expect(page.locator("#table-pot .result")).to_contain_text(str(number), timeout=WAIT_MS)


def stay_in(page: Page) -> None:
    """At a betting turn, call (or raise the least when there is nothing to call)."""
    click_move(page, "call" if page.locator("#table-actions .verb-call").count() else "raise")
