"""A player meets the computer's levels at the practice table: each level's character, style and
measured exploitability on the practice page (in both languages), and the hard level plays its
solved strategy at the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LiveServer, sign_up_in
from tests.e2e.practice_kit import WAIT_MS

pytestmark = pytest.mark.browser

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"


def test_the_practice_page_introduces_each_level_and_hard_plays_at_the_table(
    site_server: LiveServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "levels")
        page.goto(site_server.url + "/practice/")
        for level, name, style in (
            ("easy", "Uncle Pesho", "loose and passive"),
            ("normal", "Aunt Stoyanka", "tight and aggressive"),
            ("hard", "The Professor", "balanced"),
        ):
            item = page.locator(f"main .practice-characters li[data-level={level}]")
            expect(item).to_contain_text(name)
            expect(item).to_contain_text(style)
            # The figure is the committed benchmark's, not written in the page.
            won = json.loads((RESULTS / f"best_response_{level}.json").read_text())["real"]["mean"]
            expect(item.locator(".practice-measured")).to_contain_text(f"wins {won:.1f} chips a hand")
        # The same page in Bulgarian: the characters have their Bulgarian names.
        page.locator(".site-account form.rc-language button[value=bg]").click()
        expect(page.locator("main .practice-characters li[data-level=normal]")).to_contain_text(
            "Леля Стоянка"
        )
        expect(page.locator("main .practice-characters li[data-level=hard]")).to_contain_text("Измерено")
        page.locator(".site-account form.rc-language button[value=en]").click()
        expect(page.locator("main .practice-characters li[data-level=easy]")).to_contain_text("Uncle Pesho")
        # Choosing hard seats the player against it; it makes its moves at the table.
        page.locator("main form.practice-levels button[value=hard]").click()
        page.wait_for_url(re.compile(r"/table/\d+/$"))
        expect(page.locator("#table-seats .seat:not(.me) .seat-name")).to_contain_text("Computer (hard)")
        expect(page.locator("#table-log-lines")).to_contain_text("Computer (hard)", timeout=WAIT_MS)
    finally:
        context.close()
