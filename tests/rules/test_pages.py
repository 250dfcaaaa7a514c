"""The rules and FAQ pages: both languages, and every example's points straight from the engine."""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser

import pytest

from games.engine.rules import RULES_V1
from games.engine.scoring import distribution, score
from games.rules import views

PAGES = ["/rules/", "/rules/faq/", "/rules/calculator/", "/fair/"]

# Text each page must show in each language (headings the translation catalogue provides).
KEY_TEXT = {
    "/rules/": {
        "en": ["Rules of Svara", "The wild 7♣", "Dark bets", "Raising and the cap"],
        "bg": ["Правила на сварата", "Чечакът (7♣)", "Залози на тъмно", "Вдигане и таван"],
    },
    "/rules/faq/": {
        "en": ["Questions and answers", "What happens on a tie?", "What is the cap?"],
        "bg": ["Въпроси и отговори", "Какво става при равенство?", "Какво е таванът?"],
    },
    "/rules/calculator/": {
        "en": ["Hand calculator", "Or pick three cards"],
        "bg": ["Калкулатор на ръце", "Или изберете три карти"],
    },
    "/fair/": {
        "en": ["Fair deck", "How the deck is shuffled", "Check a stored hand"],
        "bg": ["Честно тесте", "Как се разбърква тестето", "Проверете изиграна ръка"],
    },
}


class ExampleRows(HTMLParser):
    """Collects (cards, points text) of every row marked rc-example, and the chart's rows."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.chart: dict[int, int] = {}
        self._in_points = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and "rc-example" in classes:
            self.rows.append({"cards": None, "points": ""})
        if tag == "tr" and "data-points" in a and "data-hands" in a:
            self.chart[int(a["data-points"])] = int(a["data-hands"])
        if self.rows and "rc-hand" in classes and self.rows[-1]["cards"] is None:
            self.rows[-1]["cards"] = a["data-cards"]
        if "rc-points" in classes:
            self._in_points = True

    def handle_endtag(self, tag):
        if tag in ("td", "strong"):
            self._in_points = False

    def handle_data(self, data):
        if self._in_points and self.rows:
            self.rows[-1]["points"] += data


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("lang", ["en", "bg"])
def test_each_page_renders_in_each_language_by_browser_preference(client, path, lang):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    text = response.content.decode()
    for wanted in KEY_TEXT[path][lang]:
        assert wanted in text, (path, lang, wanted)
    other = "bg" if lang == "en" else "en"
    assert KEY_TEXT[path][other][0] not in text


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_the_language_switcher_sets_bulgarian_for_the_next_pages(client, path):
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'action="/i18n/setlang/"' in page and 'value="bg"' in page  # the switcher is on the page
    response = client.post("/i18n/setlang/", {"language": "bg", "next": path}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302 and response["Location"] == path
    text = client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()  # the cookie beats the header
    for wanted in KEY_TEXT[path]["bg"]:
        assert wanted in text
    client.post("/i18n/setlang/", {"language": "en", "next": path})
    assert KEY_TEXT[path]["en"][0] in client.get(path, HTTP_ACCEPT_LANGUAGE="bg").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "bg"])
def test_every_worked_example_shows_the_engines_points(client, lang):
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    parser = ExampleRows()
    parser.feed(html)
    assert len(parser.rows) >= 29 + 10  # the worked examples of RULES.md §2 and the group table
    for row in parser.rows:
        assert row["cards"], row
        assert int(row["points"].strip()) == score(row["cards"].split()), row
    # Rules §2's headline cases are among them.
    cards = {row["cards"] for row in parser.rows}
    assert {"7C 8C 8D", "7C 7H AH", "7H 8D 8S", "KH KD QS"} <= cards


@pytest.mark.django_db
def test_the_chart_shows_the_engines_distribution(client):
    parser = ExampleRows()
    parser.feed(client.get("/rules/").content.decode())
    assert parser.chart == distribution()
    assert sum(parser.chart.values()) == 4960


@pytest.mark.django_db
def test_cards_are_drawn_with_suit_symbols_colours_and_names_for_screen_readers(client):
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="card red" role="img" aria-label="king of hearts"' in html
    assert 'aria-label="seven of clubs"' in html and "card black wild" in html
    html_bg = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert 'aria-label="седмица спатия"' in html_bg
    assert 'aria-label="поп купа"' in html_bg
    assert "/static/css/rules.css" in html


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "bg"])
def test_faq_points_come_from_the_engine(client, lang):
    html = client.get("/rules/faq/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert f"11 + 8 + 8 = {score(['7C', '8C', '8D'])}" in html
    parser = ExampleRows()
    parser.feed(html)
    # The FAQ marks its hands' points with rc-points beside an rc-hand; check them all.
    spans = html.split('class="rc-hand" data-cards="')[1:]
    assert len(spans) >= 5
    for chunk in spans:
        cards = chunk.split('"', 1)[0]
        if '<strong class="rc-points">' in chunk.split("</p>", 1)[0]:
            shown = chunk.split('<strong class="rc-points">', 1)[1].split("<", 1)[0]
            assert int(shown) == score(cards.split()), cards


@pytest.mark.django_db
def test_faq_has_the_table_of_choices(client):
    html = client.get("/rules/faq/").content.decode()
    assert "Where traditional rules differ, and what this room chose" in html
    for row in ("a tie", "dark bets", "after a dark bet", "short of chips", "nobody bets", "the worst hand"):
        assert f'<th scope="row">{row}</th>' in html
    bg = client.get("/rules/faq/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "българското правило" in bg and "свара" in bg


def test_the_rules_name_the_buttons_with_the_tables_own_words(client):
    """One source: the rules page's button names are the msgids the table's buttons use."""
    from django.utils import translation
    from django.utils.translation import gettext

    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    with translation.override("bg"):
        words = [gettext(w) for w in ("FOLD", "PASS", "RAISE")] + [
            gettext("CALL %(amount)s") % {"amount": ""}
        ]
    for word in words:
        assert word.strip() in page
    for english in ("FOLD", "RAISE", "CALL"):
        assert f" {english} " not in page and f"{english} (" not in page


@pytest.mark.parametrize(
    ("lang", "wanted"),
    [
        ("en", "A dark bet X is offered only while {cap} × X is within the cap"),
        ("bg", "Залог на тъмно X се предлага само докато {cap} × X е в рамките на тавана"),
    ],
)
def test_the_rules_state_the_dark_chains_cap_from_the_rules_value(client, monkeypatch, lang, wanted):
    """The cap of the dark chain is read from the Rules value the hands are played by: a changed
    copy of the rules changes the page, in each language."""
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert wanted.format(cap=RULES_V1.dark_cap) in page
    monkeypatch.setattr(views, "RULES", dataclasses.replace(RULES_V1, version=2, dark_cap=4))
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert wanted.format(cap=4) in page
