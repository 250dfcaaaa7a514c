"""The table's moments in a real browser: the deal, chips to the pot, the win (chips to the winner
and the "+chips" rising from the seat), each with its short sound while the sound switch is on and
none once it is off; under reduced motion nothing moves, and the sounds stay the switch's to give."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import ARTIFACTS, LiveServer, sign_up_in
from tests.e2e.practice_kit import WAIT_MS, betting_turn, click_move, stay_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 860}

# Every moment the page told, and each "+chips" that rose (its text, and whether it moved).
RECORDER = """
window.__moments = [];
window.__rises = [];
document.addEventListener("svara:moment", (e) => window.__moments.push([e.detail.kind, e.detail.sound]));
new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach((node) => {
  if (node.classList && node.classList.contains("win-rise")) {
    const style = getComputedStyle(node);
    window.__rises.push([node.textContent, style.animationName, node.getAttribute("aria-hidden")]);
  }
}))).observe(document, { childList: true, subtree: true });
"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_deal_the_chips_and_the_win_are_seen_and_heard(
    site_server: LiveServer, browser: Browser, motion: str
) -> None:
    expect.set_options(timeout=WAIT_MS)
    context = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    context.add_init_script(RECORDER)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, f"moment{motion[:3]}")
        page.goto(site_server.url + "/practice/")
        page.locator("main form.practice-levels button[value=easy]").click()
        expect(page.locator("#table-seats .seat.me")).to_have_count(1)
        betting_turn(page)
        stay_in(page)  # chips to the pot
        betting_turn(page)
        click_move(page, "fold")  # the computer wins the pot
        expect(page.locator("#table-seats .seat.won")).to_have_count(1)
        page.wait_for_timeout(300)
        moments = page.evaluate("window.__moments")
        kinds = [kind for kind, _sound in moments]
        assert {"deal", "chips", "win"} <= set(kinds), moments
        assert all(sound for _kind, sound in moments), moments  # the switch is on by default
        rises = page.evaluate("window.__rises")
        if motion == "reduce":
            assert rises == [] or all(name == "none" for _t, name, _h in rises), rises
        else:
            # One per hand won (the call may already have ended a hand): the chips, rising, unheard
            # (the result line says it; a screen reader hears it once).
            assert rises and all(re.fullmatch(r"\+[\d,]+", text) for text, _n, _h in rises), rises
            assert all(name == "win-rise" and hidden == "true" for _t, name, hidden in rises), rises
        page.screenshot(path=str(ARTIFACTS / f"moment-win-{motion}.png"))
        assert violations(page) == []

        # The switch off: the next moments come without a sound.
        page.locator("#sound-switch").click()
        expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "false")
        seen = len(page.evaluate("window.__moments"))
        betting_turn(page)
        later = page.evaluate("window.__moments")[seen:]
        assert later and not any(sound for _kind, sound in later), later
    finally:
        context.close()
