"""allauth's pages in a real browser: its plain forms get the site's look (main.auth in
static/css/site.css), a refused field is marked, and nothing is wider than a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import LiveServer, sign_up_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
ACCENT = "rgb(200, 16, 46)"  # --accent
ERROR = "rgb(165, 14, 14)"


def _style(page: Page, selector: str, prop: str) -> str:
    return page.eval_on_selector(selector, f"e => getComputedStyle(e).getPropertyValue('{prop}')")


def _width(page: Page, selector: str) -> float:
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().width")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_log_in_and_sign_up_forms_have_the_site_look(
    site_server: LiveServer, browser: Browser, viewport: dict[str, int]
) -> None:
    page = browser.new_context(viewport=viewport).new_page()
    try:
        page.goto(site_server.url + "/accounts/login/")
        form = "main form:has(#id_login)"
        assert _style(page, form, "background-color") == "rgb(255, 255, 255)"  # a panel on the paper
        assert _style(page, f"{form} button[type=submit]", "background-color") == ACCENT
        # Each input fills the panel's width (less its padding), its label above it.
        inner = _width(page, form) - 2 * float(_style(page, form, "padding-left").removesuffix("px")) - 2
        assert _width(page, "#id_login") == pytest.approx(inner, abs=1.5)
        login_box = page.locator("#id_login").bounding_box()
        label_box = page.locator("label[for=id_login]").bounding_box()
        assert label_box["y"] + label_box["height"] <= login_box["y"]
        # The header's language buttons are not the forms' buttons.
        assert _style(page, ".rc-language button", "background-color") != ACCENT

        page.goto(site_server.url + "/accounts/signup/")
        page.fill("#id_username", "formlook")
        page.fill("#id_email", "not-an-address")
        page.fill("#id_password1", "Svara-look-Pass-73")
        page.fill("#id_password2", "Svara-look-Pass-73")
        page.check("#id_adult")
        # The browser would refuse the address itself: let the server's check answer.
        page.eval_on_selector("main form:has(#id_email)", "f => { f.noValidate = true; }")
        page.locator("main form:has(#id_email) button[type=submit]").click()
        page.wait_for_selector(".errorlist")
        assert "valid email" in page.inner_text(".errorlist")
        assert _style(page, "#id_email", "border-top-color") == ERROR
        assert _style(page, "#id_username", "border-top-color") != ERROR
        assert _style(page, ".errorlist", "color") == ERROR
        # The password rules read as help: smaller and muted, not as the errors.
        help_list = "main form ul:not(.errorlist)"
        assert float(_style(page, help_list, "font-size").removesuffix("px")) < float(
            _style(page, "#id_username", "font-size").removesuffix("px")
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    finally:
        page.context.close()


def _contrast(page: Page, selector: str) -> float:
    """WCAG contrast of an element's text against the first opaque background behind it."""
    return page.eval_on_selector(
        selector,
        """e => {
          const rgb = s => s.match(/[\\d.]+/g).map(Number);
          const lum = ([r, g, b]) => {
            const c = [r, g, b].map(v => {
              v /= 255;
              return v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4;
            });
            return .2126 * c[0] + .7152 * c[1] + .0722 * c[2];
          };
          let node = e, bg = null;
          while (node && !bg) {
            const b = rgb(getComputedStyle(node).backgroundColor);
            if (b.length === 3 || b[3] > 0) bg = b.slice(0, 3);
            node = node.parentElement;
          }
          const [a, b] = [lum(rgb(getComputedStyle(e).color)), lum(bg || [255, 255, 255])];
          return (Math.max(a, b) + .05) / (Math.min(a, b) + .05);
        }""",
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_profile_reads_clearly(
    site_server: LiveServer, browser: Browser, viewport: dict[str, int]
) -> None:
    page = browser.new_context(viewport=viewport).new_page()
    name = f"looks{viewport['width']}"
    try:
        sign_up_in(page, site_server.url, name)
        page.goto(site_server.url + "/profile/")
        # Written as the header writes it, and legible (it once sat dark on the header's dark pill).
        assert page.inner_text("#wallet-balance") == page.inner_text("#nav-balance .amount") == "1,000"
        assert _contrast(page, "#wallet-balance") >= 4.5
        assert _contrast(page, ".wallet-amount") >= 4.5
        assert _style(page, "main .claim button", "background-color") == ACCENT
        assert page.inner_text("table.ledger td.amount") == "+1,000"
        if viewport is DESKTOP:
            assert _style(page, "table.ledger td.amount", "text-align") == "right"
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    finally:
        page.context.close()
