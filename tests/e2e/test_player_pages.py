"""The player page and the leaderboards in a real browser: the tabs, a name leading to its page,
the chips chart drawn, figures hidden from the profile, a bad period, in both languages, at a
desktop's and a phone's width (nothing wider than the screen)."""

# ruff: noqa: RUF001

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import ARTIFACTS, LiveServer, sign_up_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
WORDS = {
    "en": {"all": "All time", "save": "Save", "bad": "There is no such leaderboard"},
    "bg": {"all": "За всички времена", "save": "Запази", "bad": "Няма такава класация"},
}

# Hands stored as a settlement leaves them (tests/standings/handkit.py), the winner alternating:
# the first player wins two in three.
STORE_HANDS = """
from django.utils import timezone
from accounts.models import User
from tests.live.tablekit import make_table
from tests.standings.handkit import stored
a, b = User.objects.get(username="{a}"), User.objects.get(username="{b}")
table = make_table(name="Oak {a}", stake=50)
for i in range(24):
    win = a if i % 3 else b
    lose = b if win is a else a
    stored(table=table, at=timezone.now(), nets={{win.pk: 60, lose.pk: -60}}, winner_id=win.pk, pot=170)
"""


def _fits(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize(
    ("language", "viewport"), [("en", DESKTOP), ("bg", PHONE)], ids=["en-desktop", "bg-phone"]
)
def test_leaderboard_to_a_player_page_and_hiding_the_figures(
    site_server: LiveServer, browser: Browser, language: str, viewport: dict[str, int]
) -> None:
    words = WORDS[language]
    contexts = [
        browser.new_context(
            viewport=viewport, locale=language, extra_http_headers={"Accept-Language": language}
        )
        for _ in range(2)
    ]
    ann, bob = (context.new_page() for context in contexts)
    try:
        a, b = f"lbann{language}", f"lbbob{language}"
        sign_up_in(ann, site_server.url, a)
        sign_up_in(bob, site_server.url, b)
        site_server.manage("shell", "-c", STORE_HANDS.format(a=a, b=b))

        bob.goto(site_server.url + "/leaderboard/")
        bob.screenshot(path=str(ARTIFACTS / f"leaderboard-week-{language}.png"), full_page=True)
        bob.get_by_role("link", name=words["all"]).click()
        bob.wait_for_url("**/leaderboard/?period=all")
        assert bob.locator(".period-tabs a[aria-current=page]").inner_text() == words["all"]
        first = bob.locator("#board-chips .board-rows li").first
        assert a in first.inner_text() and "+480" in first.inner_text().replace("\u00a0", "").replace(" ", "")
        _fits(bob, viewport["width"])

        bob.locator("#board-chips .board-rows li").first.get_by_role("link", name=a).click()
        bob.wait_for_url(f"**/players/{a}/")
        assert bob.inner_text("#player-hands") == "24" and bob.inner_text("#player-won") == "16"
        chart = bob.locator("#chips-chart").bounding_box()
        assert chart["width"] > viewport["width"] * 0.6 and chart["height"] > 100
        assert bob.locator("#player-hands-list tbody tr").count() == 20
        _fits(bob, viewport["width"])
        bob.screenshot(path=str(ARTIFACTS / f"player-page-{language}.png"), full_page=True)

        ann.goto(site_server.url + "/profile/")
        ann.check("#stats-hidden-box")
        ann.get_by_role("button", name=words["save"], exact=True).click()
        ann.wait_for_selector(".messages")
        bob.reload()
        assert bob.locator("#stats-hidden").is_visible() and bob.locator("#chips-chart").count() == 0
        bob.goto(site_server.url + "/leaderboard/?period=all")
        assert a not in bob.inner_text("main") and b in bob.inner_text("#board-hands")

        response = bob.goto(site_server.url + "/leaderboard/?period=year")
        assert response.status == 400 and words["bad"] in bob.inner_text("main")
        response = bob.goto(site_server.url + "/players/nobody-at-all/")
        assert response.status == 404
        _fits(bob, viewport["width"])
    finally:
        for context in contexts:
            context.close()
