"""A player's turn as they live it, against the computer: on a phone the cards and the moves fit one
screen, the seat to act has a clock, a hidden tab is told that the turn came (title, sound,
notification), and the cards and chips move (or do not, for a player who asked for less motion)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import ARTIFACTS, LiveServer, sign_up_in
from tests.e2e.practice_kit import WAIT_MS, betting_turn, click_move, start_practice, stay_in

pytestmark = pytest.mark.browser

PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]
DESKTOP = {"width": 1280, "height": 860}

# What the page told the player: every turn alert (static/js/table.js dispatches svara:turn-alert),
# every chip that flew, and the cards of each frame as the page's script left them (whether each
# is being dealt, its animation and its delay); recorded from the first script on.
RECORDER = """
window.__alerts = [];
window.__flies = 0;
window.__frames = [];
document.addEventListener("svara:turn-alert", (e) => window.__alerts.push(e.detail));
document.addEventListener("htmx:wsAfterMessage", () => setTimeout(() => {
  const cards = [...document.querySelectorAll("#table-seats .card")];
  window.__frames.push(cards.map((c) => [c.classList.contains("deal"), getComputedStyle(c).animationName,
    parseFloat(getComputedStyle(c).animationDelay)]));
}, 0));
new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach((node) => {
  if (node.classList && node.classList.contains("chip-fly")) window.__flies += 1;
}))).observe(document, { childList: true, subtree: true });
"""

# Headless Chromium keeps every page visible: the page is told it is hidden (and shown again)
# as the browser tells it, through document.visibilityState and the visibilitychange event.
SET_VISIBILITY = """(hidden) => {
  window.__hidden = hidden;
  if (!window.__visibilityEmulated) {
    Object.defineProperty(document, "visibilityState", {
      configurable: true, get: () => (window.__hidden ? "hidden" : "visible") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => !!window.__hidden });
    window.__visibilityEmulated = true;
  }
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def fit(page: Page) -> dict:
    """Where the own cards, the moves and the header are on the screen, scrolled to the top."""
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(
        """() => {
          const box = (e) => e.getBoundingClientRect();
          const cards = [...document.querySelectorAll("#table-seats .seat.me .card")].map(box);
          const moves = [...document.querySelectorAll("#table-actions .moves :is(button, input)")]
            .filter((e) => e.type !== "hidden" && e.getClientRects().length > 0).map(box);
          return {
            height: innerHeight,
            width: document.documentElement.scrollWidth,
            header: box(document.querySelector(".site-header")).height,
            cards_top: Math.min(...cards.map((b) => b.top)),
            cards_bottom: Math.max(...cards.map((b) => b.bottom)),
            moves_top: Math.min(...moves.map((b) => b.top)),
            moves_bottom: Math.max(...moves.map((b) => b.bottom)),
            cards: cards.length,
            moves: moves.length,
          };
        }"""
    )


def test_on_a_phone_your_cards_and_your_moves_fit_one_screen(
    site_server: LiveServer, browser: Browser
) -> None:
    context = browser.new_context(viewport=PHONES[0])
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "phoneturn")
        # After sign-up the home page offers a game at once, not only the lobby.
        assert page.url.rstrip("/") == site_server.url
        hero = page.locator("main .hero-actions")
        expect(hero.get_by_role("button", name="Play now")).to_be_visible()
        hero.get_by_role("link", name="Practice").click()
        start_practice(page, site_server.url)
        betting_turn(page)
        for size in PHONES:
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            where = fit(page)
            page.screenshot(path=str(ARTIFACTS / f"turn-phone-{size['width']}.png"))
            assert where["cards"] == 3 and where["moves"] >= 3, where
            assert where["header"] <= 56, f"the header takes {where['header']} px at {size}"
            assert where["width"] <= size["width"], where
            # The cards above the moves, the moves on the screen: nothing to scroll on your turn.
            assert where["cards_top"] >= 0 and where["cards_bottom"] <= where["moves_top"], (size, where)
            assert where["moves_bottom"] <= where["height"], (size, where)
            # The computer's name is whole, not cut to "Computer (ea…".
            name = page.locator("#table-seats .seat:not(.me) .seat-name")
            expect(name).to_contain_text("Computer (easy)")
            assert name.evaluate(
                "(e) => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight + 1"
            )
    finally:
        context.close()


def test_the_seat_to_act_has_a_clock_that_runs_down(site_server: LiveServer, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "clockturn")
        start_practice(page, site_server.url)
        betting_turn(page)
        bar = page.locator("#table-seats .seat.me.acting .seat-clock > span")
        expect(bar).to_have_count(1)
        # The bar empties by a CSS animation as long as the turn has left, from what is left of it.
        clock = bar.evaluate(
            """(e) => { const s = getComputedStyle(e); return {
                 name: s.animationName, duration: parseFloat(s.animationDuration),
                 from: parseFloat(getComputedStyle(e.parentElement).getPropertyValue("--from")) }; }"""
        )
        assert clock["name"].startswith("clock-run"), clock
        assert 20 < clock["duration"] <= 30 and 0.6 < clock["from"] <= 1, clock
        first = bar.evaluate("(e) => e.getBoundingClientRect().width")
        page.wait_for_timeout(1500)
        assert bar.evaluate("(e) => e.getBoundingClientRect().width") < first  # running down
        expect(page.locator("#table-seats .seat:not(.acting) .seat-clock")).to_have_count(0)
    finally:
        context.close()


def test_a_hidden_tab_is_told_that_the_turn_came(site_server: LiveServer, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["notifications"], origin=site_server.url)
    context.add_init_script(RECORDER)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "hiddenturn")
        start_practice(page, site_server.url)
        title = page.title()
        expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "true")

        # Your move, then away to another tab: when the turn comes back the page says so.
        betting_turn(page)
        page.evaluate(SET_VISIBILITY, True)
        stay_in(page)
        page.wait_for_function("window.__alerts.length > 0", timeout=WAIT_MS)
        alert = page.evaluate("window.__alerts[0]")
        assert alert == {"title": f"Your turn · {title}", "sound": True, "notified": True}
        assert page.title() == f"Your turn · {title}"
        page.evaluate(SET_VISIBILITY, False)  # back in sight: the page's own title again
        expect(page).to_have_title(title)

        # The sound switched off stays off (this browser remembers it), and the next alert is silent.
        page.locator("#sound-switch").click()
        expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "false")
        page.reload()
        expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#table-connection")).to_have_text("connected")
        betting_turn(page)
        page.evaluate(SET_VISIBILITY, True)
        stay_in(page)
        page.wait_for_function("window.__alerts.length > 0", timeout=WAIT_MS)
        assert page.evaluate("window.__alerts[0]")["sound"] is False

        # In sight, the turn comes with no alert.
        page.evaluate(SET_VISIBILITY, False)
        count = page.evaluate("window.__alerts.length")
        betting_turn(page)
        stay_in(page)
        betting_turn(page)
        assert page.evaluate("window.__alerts.length") == count and page.title() == title
    finally:
        context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_are_dealt_one_at_a_time_and_chips_fly_unless_asked_not_to(
    site_server: LiveServer, browser: Browser, motion: str
) -> None:
    context = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    context.add_init_script(RECORDER)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, f"motion{motion[:3]}")
        start_practice(page, site_server.url)
        betting_turn(page)
        # The frame that dealt the cards (the page came before the deal: the dark round is first).
        dealt = next(cards for cards in page.evaluate("window.__frames") if len(cards) == 6)
        stay_in(page)
        page.wait_for_timeout(300)
        flies = page.evaluate("window.__flies")
        if motion == "reduce":
            assert all(not moving and name == "none" for moving, name, _delay in dealt), dealt
            assert flies == 0
        else:
            assert all(moving and name == "deal-in" for moving, name, _delay in dealt), dealt
            delays = sorted(delay for _m, _n, delay in dealt)
            assert len(set(delays)) == 6 and delays[0] == 0, f"one card at a time: {delays}"
            assert flies > 0  # the call's chips went to the pot
    finally:
        context.close()


def test_your_turn_puts_the_focus_on_call_or_on_the_turn_never_on_fold(
    site_server: LiveServer, browser: Browser
) -> None:
    """A reflex Enter when the turn comes must not fold (in Svara PASS is the same move): the focus
    goes to CALL when there is something to call, else to the turn's heading, which says the turn
    and its price; the live region says it too."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, "safefocus")
        start_practice(page, site_server.url)
        seen: set[str] = set()
        deadline = time.monotonic() + 120
        while not {"call", "heading"} <= seen:
            assert time.monotonic() < deadline, f"only saw the focus at {seen}"
            if not page.locator("#table-actions .moves").count():
                page.wait_for_timeout(100)
                continue
            page.wait_for_timeout(150)  # the frame's script has placed the focus
            where = page.evaluate(
                "() => { const e = document.activeElement; return [e.id, e.className, e.textContent]; }"
            )
            assert "verb-fold" not in where[1], f"the turn put the focus on {where}"
            # A screen reader hears the turn and its price (checked before the move moves the table on).
            expect(page.locator("#table-announce")).to_contain_text("Your turn")
            call = page.locator("#table-actions .moves .verb-call")
            if call.count():
                expect(call).to_be_focused()
                seen.add("call")
                click_move(page, "call")
            else:
                heading = page.locator("#turn-heading")
                expect(heading).to_be_focused()
                expect(heading).to_contain_text("Your turn")
                seen.add("heading")
                if page.locator("#table-actions .verb-decline").count():
                    expect(heading).to_contain_text("dark")
                    click_move(page, "decline")
                else:
                    click_move(page, "raise")
    finally:
        context.close()


SCREENS = [
    {"width": 1366, "height": 657},
    {"width": 1280, "height": 720},
    {"width": 1920, "height": 1080},
    {"width": 390, "height": 844},
    {"width": 360, "height": 740},
]
# Every seat, the pot, your cards and your moves: what is off the screen (or under the phone's fixed
# turn bar) at the top of the page, without scrolling.
OFF_SCREEN = """() => {
  const bar = document.querySelector("#table-actions .turn-bar");
  const fixed = bar && getComputedStyle(bar).position === "fixed";
  const floor = fixed ? bar.getBoundingClientRect().top : innerHeight;
  const parts = [
    ...[...document.querySelectorAll("#table-seats .seat")]
      .map((e) => ["seat " + e.dataset.position, e, floor]),
    ["pot", document.querySelector("#table-pot .pot-amount"), floor],
    ...[...document.querySelectorAll("#table-seats .seat.me .card")].map((e, i) => ["card " + i, e, floor]),
    ...[...document.querySelectorAll("#table-actions .moves :is(button, input)")]
      .filter((e) => e.type !== "hidden").map((e) => ["move " + e.className, e, innerHeight]),
  ];
  const off = [];
  for (const [name, el, bottom] of parts) {
    const b = el.getBoundingClientRect();
    if (b.top < 0 || b.bottom > bottom + 0.5 || b.left < 0 || b.right > innerWidth + 0.5) {
      off.push([name, Math.round(b.top), Math.round(b.bottom), Math.round(b.left), Math.round(b.right)]);
    }
  }
  const width = document.documentElement.scrollWidth;
  return { off: off, floor: Math.round(floor), scrolled: scrollY, width: width };
}"""
# The page's scroll position after every frame: the turn's coming must not move the page.
SCROLLS = """
window.__scrolls = [];
document.addEventListener("htmx:wsAfterMessage", () => setTimeout(() => window.__scrolls.push(scrollY), 0));
"""


@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
def test_at_your_turn_the_whole_table_fits_the_screen_without_a_jump(
    site_server: LiveServer, browser: Browser, size: dict
) -> None:
    context = browser.new_context(viewport=size)
    context.add_init_script(SCROLLS)
    page = context.new_page()
    try:
        sign_up_in(page, site_server.url, f"fit{size['width']}")
        start_practice(page, site_server.url)
        betting_turn(page)
        page.wait_for_timeout(300)
        page.screenshot(path=str(ARTIFACTS / f"turn-fit-{size['width']}x{size['height']}.png"))
        assert page.evaluate("window.__scrolls.every((y) => y === 0)"), page.evaluate("window.__scrolls")
        where = page.evaluate(OFF_SCREEN)
        assert where["off"] == [] and where["scrolled"] == 0, (size, where)
        assert where["width"] <= size["width"], (size, where)
        # Your own seat and the seat to act look different (both were one yellow frame).
        looks = page.evaluate(
            """() => {
              const me = document.querySelector("#table-seats .seat.me");
              const other = document.querySelector("#table-seats .seat:not(.me):not(.empty)");
              const look = (e) => { const s = getComputedStyle(e);
                return [s.boxShadow, s.outlineStyle, s.outlineColor, s.backgroundColor].join("|"); };
              me.classList.remove("acting"); const mine = look(me); me.classList.add("acting");
              other.classList.add("acting"); const acting = look(other); other.classList.remove("acting");
              return [mine, acting];
            }"""
        )
        assert looks[0] != looks[1], looks
    finally:
        context.close()
