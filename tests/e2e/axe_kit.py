"""axe-core in the browser tests: the page as it is now, checked against the WCAG 2.2 A and AA rules.

axe-core comes with the axe-playwright-python package (pinned in requirements.txt), which injects
it into the page; nothing of it is copied here. A test collects what each state of a page violates
and asserts at the end that nothing did, so one run names every state that fails.
"""

from __future__ import annotations

from playwright.sync_api import Page

# The rules tagged with these: WCAG 2.0, 2.1 and 2.2 at levels A and AA (not best practice).
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
# A new deal's cards fade in one by one (about a second): axe would read their contrast half-faded.
# Wait for those to end (not for the seat's clock bar, which runs the whole turn).
CARDS_DEALT = """() => Promise.race([
  Promise.all(document.getAnimations()
    .filter((a) => a.effect && a.effect.target && a.effect.target.closest && a.effect.target.closest(".card"))
    .map((a) => a.finished.catch(() => null))),
  new Promise((done) => setTimeout(done, 3000)),
])"""


def violations(page: Page) -> list[str]:
    """What the page violates now, one line per rule: its id, impact and the first few elements."""
    from axe_playwright_python.sync_playwright import Axe

    page.evaluate(CARDS_DEALT)
    results = Axe().run(
        page, options={"runOnly": {"type": "tag", "values": WCAG_22_AA}, "resultTypes": ["violations"]}
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(", ".join(node["target"]) for node in v["nodes"][:3])
        for v in results.response["violations"]
    ]
