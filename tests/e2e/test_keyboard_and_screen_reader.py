"""The table without a mouse and without sight, in real browsers.

ann uses the keyboard alone: she signs up (a refused first try puts her on the field to fix), sits
down at bob's table and plays until she has bet dark, raised by typing an amount, called and folded,
each move with Enter or its key; after every move the focus is checked (on the actions, and on CALL
or the turn's heading when her turn comes, never on FOLD). bob plays with the mouse, in Bulgarian.
On both pages the one live
region (#table-announce) is the same element from first to last and receives the moves, the turns and
the results; axe-core finds nothing against WCAG 2.2 A/AA at each state, in both languages. At her
last turn ann switches the one-letter keys off and on again, and her last key is pressed as a
Cyrillic layout sends it (another letter, the same physical key). At a table of three she folds,
the two others tie, and she joins the svara with her key and plays the replay.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import LiveServer, sign_up_in
from tests.e2e.test_play_in_browser import DESKTOP, WAIT_MS, deck, full_deck, stack

pytestmark = pytest.mark.browser

PASSWORD = "Svara-keys-Pass-58"
# Every line the live region is given, as the page's script leaves it; and the region itself.
RECORDER = """
window.__said = [];
document.addEventListener("DOMContentLoaded", () => {
  const region = document.getElementById("table-announce");
  if (!region) return;
  window.__region = region;
  new MutationObserver(() => {
    const lines = [...region.querySelectorAll("p")].map((p) => p.textContent);
    if (lines.length) window.__said.push(...lines);
  }).observe(region, { childList: true, subtree: true });
});
"""
SAME_REGION = """() => !!window.__region && window.__region.isConnected
  && window.__region === document.getElementById("table-announce")"""


def focused(page: Page, selector: str) -> bool:
    return page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector)


def tab_to(page: Page, selector: str, *, back: bool = False, limit: int = 60) -> None:
    """Tab (or Shift+Tab) until ``selector`` has the focus: it is reachable from the keyboard."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if focused(page, selector):
            return
    where = page.evaluate("document.activeElement && document.activeElement.outerHTML.slice(0, 120)")
    raise AssertionError(f"{selector} not reached by the keyboard (the focus is on {where})")


def version(page: Page) -> str:
    return page.locator("#table-version").get_attribute("data-version") or ""


def my_turn(page: Page) -> bool:
    return page.locator("#table-actions .moves button").count() > 0


def verbs(page: Page) -> set[str]:
    classes = page.locator("#table-actions .moves button[class^=verb-]").evaluate_all(
        "(buttons) => buttons.map((b) => b.className)"
    )
    return {c.removeprefix("verb-") for c in classes}


def sign_up_by_keyboard(page: Page, url: str, name: str) -> None:
    page.goto(url + "/accounts/signup/")
    for field, text in (("#id_username", name), ("#id_email", f"{name}@example.com")):
        tab_to(page, field)
        page.keyboard.type(text)
    tab_to(page, "#id_password1")
    page.keyboard.type(PASSWORD)
    tab_to(page, "#id_password2")
    page.keyboard.type(PASSWORD + "x")  # not the same: refused
    tab_to(page, "#id_adult")  # the 18+ box (required: the browser holds the form without it)
    page.keyboard.press("Space")  # ticked; the refused form comes back with it ticked
    tab_to(page, "#id_password2", back=True)
    page.keyboard.press("Enter")
    page.wait_for_selector(".errorlist")
    # The refused form comes back with the focus on the field to fix, not at the top of the page.
    expect(page.locator("#id_password2")).to_be_focused()
    for field in ("#id_password1", "#id_password2"):
        page.locator(field).evaluate("(e) => { e.value = ''; }")  # as a player clearing them would
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#id_password1")).to_be_focused()
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector("#nav-balance")


def expect_turn_focus(page: Page) -> None:
    """Where the turn puts the focus: CALL when there is something to call, else the turn's heading
    (never FOLD or PASS: a reflex Enter must not throw the hand away)."""
    call = page.locator("#table-actions .moves .verb-call")
    expect(call if call.count() else page.locator("#turn-heading")).to_be_focused()


def keyboard_move(page: Page, verb: str) -> None:
    """ann's move, from where the focus is when her turn came (CALL or the turn's heading), by key
    (or Enter on CALL)."""
    expect_turn_focus(page)
    before = version(page)
    if verb == "dark":
        expect(page.locator("#turn-heading")).to_be_focused()
        page.keyboard.press("Enter")  # on the heading Enter does nothing: no move by reflex
        page.wait_for_timeout(300)
        assert version(page) == before, "Enter on the turn's heading made a move"
        page.keyboard.press("d")
    elif verb == "call":
        page.keyboard.press("Enter")  # the focus is on CALL
    elif verb == "raise":
        page.keyboard.press("r")
        amount = page.locator("#table-actions .raise-form input[name=amount]")
        expect(amount).to_be_focused()
        low, high = int(amount.get_attribute("min") or 0), int(amount.get_attribute("max") or 0)
        page.keyboard.press("Control+A")
        page.keyboard.type(str(min(low + 10, high)))
        page.keyboard.press("Enter")
    else:
        page.keyboard.press({"decline": "n", "call": "c", "fold": "f"}[verb])
    expect(page.locator("#table-version")).not_to_have_attribute("data-version", before)


def ann_picks(todo: list[str], can: set[str]) -> str:
    """The next move ann still has to make, if this turn offers it (a fold only as the last)."""
    for verb in todo:
        if verb in can and (verb != "fold" or len(todo) == 1):
            return verb
    return "decline" if "decline" in can else "call" if "call" in can else "raise"


def bob_plays(page: Page, todo: list[str]) -> None:
    """bob keeps the hand going so that ann gets each move: no dark bets; he opens the betting when
    nothing is to call, raises once ann has only a call (and a fold) left to make, else calls."""
    can = verbs(page)
    if "decline" in can:
        verb = "decline"
    elif "call" not in can or ("call" in todo and "raise" not in todo and "raise" in can):
        verb = "raise"
    else:
        verb = "call"
    before = version(page)
    page.locator(f"#table-actions button.verb-{verb}").click()
    expect(page.locator("#table-version")).not_to_have_attribute("data-version", before)


def last_turn_keys(page: Page) -> None:
    """With the keys switched off a letter does nothing; on a link it never does; switched on
    again, the fold key pressed as a Bulgarian layout sends it (ф on the F key) folds."""
    expect_turn_focus(page)
    tab_to(page, "#keys-switch", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("#keys-switch")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#table-actions .keys")).to_be_hidden()
    tab_to(page, "#table-log-box")  # the log box scrolls from the keyboard
    before = version(page)
    page.keyboard.press("f")
    page.wait_for_timeout(700)
    assert version(page) == before and my_turn(page), "a key fired with the shortcuts switched off"
    tab_to(page, "#keys-switch", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("#keys-switch")).to_have_attribute("aria-pressed", "true")
    tab_to(page, "main .back a")
    page.keyboard.press("f")
    page.wait_for_timeout(700)
    assert version(page) == before and my_turn(page), "a key fired with the focus on a link"
    tab_to(page, "#table-log-box", back=True)
    page.evaluate(
        """() => document.activeElement.dispatchEvent(new KeyboardEvent("keydown",
             { key: "ф", code: "KeyF", bubbles: true, cancelable: true }))"""
    )
    expect(page.locator("#table-version")).not_to_have_attribute("data-version", before)


def test_a_hand_played_from_the_keyboard_with_everything_said(
    site_server: LiveServer, browser: Browser
) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    ann_context = browser.new_context(viewport=DESKTOP)
    bob_context = browser.new_context(
        viewport=DESKTOP, locale="bg", extra_http_headers={"Accept-Language": "bg"}
    )
    for context in (ann_context, bob_context):
        context.add_init_script(RECORDER)
    ann, bob = ann_context.new_page(), bob_context.new_page()
    errors: list[str] = []
    for page in (ann, bob):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    broken: dict[str, list[str]] = {}
    try:
        sign_up_by_keyboard(ann, url, "annkeys")
        sign_up_in(bob, url, "bobkeys")
        assert bob.locator("html").get_attribute("lang") == "bg"

        # bob opens a table and sits down; the first hand's deck is stacked (no tie: no svara).
        bob.goto(url + "/tables/new/")
        bob.fill("#id_name", "Keys table")
        bob.select_option("#id_stake", "10")
        bob.select_option("#id_seat_count", "2")
        bob.fill("#id_turn_seconds", "90")
        bob.locator("form.table-form button[type=submit]").click()
        bob.wait_for_url(re.compile(r"/table/\d+/$"))
        table_id = int(re.search(r"/table/(\d+)/", bob.url).group(1))
        seat = bob.locator('#table-seats .seat[data-position="1"]')
        seat.locator("input[name=buy_in]").fill("500")
        seat.locator(".sit-form button").click()
        expect(bob.locator("#table-seats .seat.me")).to_have_count(1)
        stack(url, table_id, deck(1, 0))

        # ann sits from the keyboard: the buy-in field of seat 1, Enter.
        ann.goto(f"{url}/table/{table_id}/")
        expect(ann.locator("#table-connection")).to_have_text("connected")
        broken["table, watching (en)"] = violations(ann)
        tab_to(ann, '#table-seats .seat[data-position="0"] input[name=buy_in]')
        ann.keyboard.press("Control+A")
        ann.keyboard.type("500")
        ann.keyboard.press("Enter")
        expect(ann.locator("#table-seats .seat.me")).to_have_count(1)
        # The seat's form is gone with the swap: the focus is on the actions, not lost to the page.
        expect(ann.locator("#table-actions")).to_be_focused()
        # A refused command (more chips than her wallet holds) puts her back on the field it was
        # about, marked invalid and described by the reason.
        tab_to(ann, "#table-actions .add-form input[name=amount]")
        ann.keyboard.press("Control+A")
        ann.keyboard.type("99999")
        ann.keyboard.press("Enter")
        expect(ann.locator("#table-notice .error")).to_be_visible()
        field = ann.locator("#table-actions .add-form input[name=amount]")
        expect(field).to_be_focused()
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(field).to_have_attribute("aria-describedby", "table-notice")
        ann.keyboard.press("Tab")  # on to the Add button: typing, the turn would not take the focus

        todo = ["dark", "raise", "call", "fold"]
        stacked: set[int] = set()  # the hands during which the next one's deck was stacked
        deadline = time.monotonic() + 240
        while todo:
            assert time.monotonic() < deadline, f"ann never got to {todo}"
            hand = ann.locator("#table-pot").get_attribute("data-hand") or ""
            if hand.isdigit() and int(hand) not in stacked and ann.locator("#table-pot .result").count() == 0:
                stack(url, table_id, deck(1, 0))  # the next hand's deck, while this one is played
                stacked.add(int(hand))
            if my_turn(ann):
                phase = ann.locator("#table-pot").get_attribute("data-phase")
                broken.setdefault(f"table, ann's turn in the {phase} round (en)", violations(ann))
                if todo == ["fold"] and "fold" in verbs(ann):
                    last_turn_keys(ann)
                    todo.remove("fold")
                    # The focus stays where it was (the log box, by its id), the hand over or not.
                    expect(ann.locator("#table-log-box")).to_be_focused()
                    continue
                else:
                    verb = ann_picks(todo, verbs(ann))
                    keyboard_move(ann, verb)
                    if verb in todo:
                        todo.remove(verb)
                if my_turn(ann):  # the hand went on to her turn again at once (a new round)
                    expect_turn_focus(ann)
                else:
                    expect(ann.locator("#table-actions")).to_be_focused()
            elif my_turn(bob):
                phase = bob.locator("#table-pot").get_attribute("data-phase")
                broken.setdefault(f"table, bob's turn in the {phase} round (bg)", violations(bob))
                bob_plays(bob, todo)
            else:
                ann.wait_for_timeout(150)
        for page in (ann, bob):
            expect(page.locator("#table-pot .result")).to_be_visible(timeout=WAIT_MS)
        broken["table, a result (en)"] = violations(ann)
        broken["table, a result (bg)"] = violations(bob)

        # One live region from first to last on both pages, told each move, turn and result.
        assert ann.evaluate(SAME_REGION) and bob.evaluate(SAME_REGION)
        said_to_ann = ann.evaluate("window.__said")
        said_to_bob = bob.evaluate("window.__said")
        for pattern in (
            r"Your turn: bet 10 dark, or not",
            r"annkeys bets 10 dark",
            r"bobkeys raises to \d+",
            r"annkeys raises to \d+",
            r"annkeys calls \d+",
            r"Your turn, \d+ to call",
            r"(annkeys|bobkeys) won \d+",
        ):
            assert any(re.fullmatch(pattern, line) for line in said_to_ann), (pattern, said_to_ann)
        for pattern in (r"annkeys залага 10 на тъмно", r"Вие сте на ход.*", r"(annkeys|bobkeys) спечели \d+"):
            assert any(re.fullmatch(pattern, line) for line in said_to_bob), (pattern, said_to_bob)
        # Nothing that changes by itself (the countdown, the seed hash) is said.
        assert not [line for line in said_to_ann + said_to_bob if re.search(r"[0-9a-f]{16}|\bs left\b", line)]
        assert not errors, errors
        assert {state: found for state, found in broken.items() if found} == {}
    finally:
        ann_context.close()
        bob_context.close()


# Three players, each dealt a suit's 10, J and Q (30 points) whoever is dealt first: the two who stay
# in tie and the one who folded may join the svara. The replay's deal gives one player 31.
TIE_DEAL = ["10H", "10S", "10D", "JH", "JS", "JD", "QH", "QS", "QD"]
REPLAY_DEAL = ["AH", "8C", "9S", "KH", "10D", "JS", "QH", "QS", "KC"]


def _mouse_move(page: Page) -> None:
    """bob's and cat's play: call what there is to call, else raise the least."""
    verb = "call" if "call" in verbs(page) else "raise"
    before = version(page)
    page.locator(f"#table-actions button.verb-{verb}").click()
    expect(page.locator("#table-version")).not_to_have_attribute("data-version", before)


def test_a_svara_joined_from_the_keyboard(site_server: LiveServer, browser: Browser) -> None:
    """ann, at the keyboard, folds a three-player hand; bob and cat tie on 30; ann joins the svara
    with her key (the focus on her first move when the join round comes) and plays the replay."""
    expect.set_options(timeout=10_000)
    url = site_server.url
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    for context in contexts:
        context.add_init_script(RECORDER)
    ann, bob, cat = (context.new_page() for context in contexts)
    errors: list[str] = []
    for page in (ann, bob, cat):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for page, name in ((ann, "annjoin"), (bob, "bobjoin"), (cat, "catjoin")):
            sign_up_in(page, url, name)
        bob.goto(url + "/tables/new/")
        bob.fill("#id_name", "Join table")
        bob.select_option("#id_stake", "10")
        bob.select_option("#id_seat_count", "3")
        bob.uncheck("#id_dark_play")
        bob.fill("#id_turn_seconds", "90")
        bob.locator("form.table-form button[type=submit]").click()
        bob.wait_for_url(re.compile(r"/table/\d+/$"))
        table_id = int(re.search(r"/table/(\d+)/", bob.url).group(1))
        for page, position in ((bob, 1), (cat, 2)):
            page.goto(f"{url}/table/{table_id}/")
            seat = page.locator(f'#table-seats .seat[data-position="{position}"]')
            seat.locator("input[name=buy_in]").fill("500")
            seat.locator(".sit-form button").click()
            expect(page.locator("#table-seats .seat.me")).to_have_count(1)
        # ann sits from the keyboard; hand 1 (with her or not, as the clock fell) is folded away
        # while the tie is stacked for hand 2, the first one all three are dealt into.
        ann.goto(f"{url}/table/{table_id}/")
        expect(ann.locator("#table-connection")).to_have_text("connected")
        tab_to(ann, '#table-seats .seat[data-position="0"] input[name=buy_in]')
        ann.keyboard.press("Control+A")
        ann.keyboard.type("500")
        ann.keyboard.press("Enter")
        expect(ann.locator("#table-seats .seat.me")).to_have_count(1)
        expect(bob.locator("#table-pot")).to_have_attribute("data-hand", "1", timeout=WAIT_MS)
        expect(bob.locator("#table-pot")).to_have_attribute("data-phase", "betting", timeout=WAIT_MS)
        stack(url, table_id, full_deck(TIE_DEAL), full_deck(REPLAY_DEAL))
        deadline = time.monotonic() + 60
        while not bob.locator("#table-pot .result").count():
            assert time.monotonic() < deadline, "hand 1 never ended"
            if my_turn(ann):
                keyboard_move(ann, "fold")
            elif mover := next((p for p in (bob, cat) if my_turn(p)), None):
                before = version(mover)
                mover.locator("#table-actions button.verb-fold").click()
                expect(mover.locator("#table-version")).not_to_have_attribute("data-version", before)
            else:
                ann.wait_for_timeout(150)

        # Hand 2: ann folds at her turn; the other two stay in to the showdown, and tie.
        expect(ann.locator("#table-pot")).to_have_attribute("data-hand", "2", timeout=WAIT_MS)
        folded = False
        deadline = time.monotonic() + 120
        while ann.locator("#table-pot").get_attribute("data-phase") != "join" or not my_turn(ann):
            assert time.monotonic() < deadline, "the svara's join round never came to ann"
            if my_turn(ann) and not folded:
                keyboard_move(ann, "fold")
                folded = True
            elif my_turn(bob):
                _mouse_move(bob)
            elif my_turn(cat):
                _mouse_move(cat)
            else:
                ann.wait_for_timeout(150)
        assert folded
        # The join round: the focus is on the turn's heading (it says the fee); j joins.
        expect(ann.locator("#turn-heading")).to_be_focused()
        expect(ann.locator("#turn-heading")).to_contain_text("Join the svara for")
        expect(ann.locator("#table-actions button.verb-join")).to_be_visible()
        before = version(ann)
        ann.keyboard.press("j")
        expect(ann.locator("#table-version")).not_to_have_attribute("data-version", before)

        # The replay: ann is dealt in again and plays it from the keyboard (she calls or raises).
        deadline = time.monotonic() + 120
        while not ann.locator("#table-pot .result").count():
            assert time.monotonic() < deadline, "the replay never ended"
            if my_turn(ann) and ann.locator("#table-pot").get_attribute("data-phase") == "betting":
                keyboard_move(ann, "call" if "call" in verbs(ann) else "raise")
            elif my_turn(bob):
                _mouse_move(bob)
            elif my_turn(cat):
                _mouse_move(cat)
            else:
                ann.wait_for_timeout(150)
        said = ann.evaluate("window.__said")
        assert any(
            re.fullmatch(r"Svara! (bobjoin|catjoin) and (bobjoin|catjoin) tie on 30.*", s) for s in said
        ), said
        assert any(re.fullmatch(r"annjoin joins the svara.*", s) for s in said), said
        assert ann.evaluate(SAME_REGION)
        assert not errors, errors
    finally:
        for context in contexts:
            context.close()
