"""Every page fits a phone's width in both languages: nothing makes the whole page scroll sideways
(the rules' and the calculator's tables, the hand list and the profile once did)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import LiveServer, sign_up_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PUBLIC = ["/", "/lobby/", "/rules/", "/rules/faq/", "/fair/", "/rules/calculator/?cards=7C+AC+KC"]
PUBLIC += ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/no-such-page/"]
SIGNED_IN = ["/practice/", "/profile/", "/hands/", "/accounts/password/change/", "/accounts/email/"]


def _too_wide(page: Page) -> list[str]:
    """The page's overflow, with the outermost elements past the right edge to say where."""
    return page.evaluate(
        """(width) => document.documentElement.scrollWidth <= width ? [] :
             [...document.querySelectorAll('body *')]
               .filter(e => e.getBoundingClientRect().right > width + 1)
               .slice(0, 3)
               .map(e => `${e.tagName}.${e.className} to ${Math.round(e.getBoundingClientRect().right)}`)""",
        PHONE["width"],
    )


@pytest.mark.parametrize("language", ["en", "bg"])
def test_no_page_is_wider_than_a_phone(site_server: LiveServer, browser: Browser, language: str) -> None:
    context = browser.new_context(
        viewport=PHONE, locale=language, extra_http_headers={"Accept-Language": language}
    )
    page = context.new_page()
    try:
        wide = {}
        for path in PUBLIC:
            page.goto(site_server.url + path)
            wide[path] = _too_wide(page)
        name = f"narrow{language}"
        sign_up_in(page, site_server.url, name)
        assert page.locator("html").get_attribute("lang") == language
        for path in SIGNED_IN:
            page.goto(site_server.url + path)
            wide[path] = _too_wide(page)
        assert {path: where for path, where in wide.items() if where} == {}
    finally:
        context.close()
