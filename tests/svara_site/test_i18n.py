"""English and Bulgarian for the whole site: every main page in both languages, the browser's
language by default and the switcher's cookie above it, e-mails in the language of the request,
and a catalogue with a translation for every message.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

import re
import string

import polib
import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core import mail
from django.test import Client

from games.live import service
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

CATALOGUE = settings.BASE_DIR / "locale" / "bg" / "LC_MESSAGES" / "django.po"


@pytest.fixture
def ann():
    return make_player("ann")


@pytest.fixture
def table(ann):
    table = make_table(name="oak")
    async_to_sync(service.table_sit)(user=ann, table_id=table.pk, position=0, buy_in=500)
    return table


# (path, login needed, English strings, Bulgarian strings, English that must be gone in Bulgarian)
PAGES = {
    "home": (
        "/",
        False,
        ["Svara, the Bulgarian three-card game", "Go to the lobby"],
        ["Свара – българската игра с три карти", "Към лобито"],
        ["Go to the lobby"],
    ),
    "lobby": (
        "/lobby/",
        True,
        ["Play now", "Open a table", "Filter by stake", "Dark play"],
        ["Играй сега", "Отворете маса", "Филтър по миза", "Игра на тъмно"],
        ["Play now", "Open the table"],
    ),
    "table": (
        "/table/{table}/",
        True,
        ["Seat 2", "Sit here", "You are watching", "Back to the lobby", "ann sits down with 500"],
        ["Място 2", "Седни тук", "Гледате", "Обратно към лобито", "ann сяда с 500 чипа"],
        ["Sit here", "sits down"],
    ),
    "practice": (
        "/practice/",
        True,
        ["Practice against the computer", "Easy"],
        ["Тренировка срещу компютъра", "Лесен"],
        ["Practice against"],
    ),
    "profile": (
        "/profile/",
        True,
        ["Chip history", "Claim the daily bonus (500)", "welcome chips"],
        ["История на чиповете", "Вземи дневния бонус (500)", "чипове за добре дошли"],
        ["Chip history", "welcome chips"],
    ),
    "login": ("/accounts/login/", False, ["Sign In", "Sign up"], ["Вход", "Регистрация"], ["Sign In"]),
    "signup": (
        "/accounts/signup/",
        False,
        ["Sign Up", "Username"],
        ["Регистрация", "Потребителско име"],
        ["Username"],
    ),
    "my hands": (
        "/hands/",
        True,
        ["My hands", "Any result"],
        ["Моите ръце", "Всеки резултат"],
        ["Any result"],
    ),
    "rules": (
        "/rules/",
        False,
        ["Rules of Svara", "The wild 7♣"],
        ["Правила на сварата", "Чечакът (7♣)"],
        ["Rules of Svara"],
    ),
}


def get(client: Client, path: str, **headers) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def nav_client(user, needs_login: bool) -> Client:
    client = Client()
    if needs_login:
        client.force_login(user)
    return client


@pytest.mark.parametrize("name", list(PAGES))
def test_each_main_page_is_english_by_default_and_bulgarian_for_a_bulgarian_browser(name, table):
    path, needs_login, english, bulgarian, gone = PAGES[name]
    path = path.format(table=table.pk)
    client = nav_client(make_player("bob"), needs_login)  # at the table: a spectator
    html = get(client, path)  # no Accept-Language at all: the site's default
    assert '<html lang="en">' in html
    for text in english:
        assert text in html, (name, text)
    html = get(client, path, HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    for text in english:
        assert text in html, (name, text)
    html = get(client, path, HTTP_ACCEPT_LANGUAGE="bg-BG,bg;q=0.9,en;q=0.5")
    assert '<html lang="bg">' in html
    for text in bulgarian:
        assert text in html, (name, text)
    for text in gone:
        assert text not in html, (name, text)
    # The header is the site's own on every page, allauth's included; the title too.
    assert "Лоби" in html and "Тренировка" in html and "Правила" in html
    assert "Svara room" not in html
    assert "{#" not in html  # a template comment left on the page is text nobody translates


def test_a_browser_preferring_an_unsupported_language_gets_its_next_choice_or_english(ann):
    client = Client()
    assert "Към лобито" in get(client, "/", HTTP_ACCEPT_LANGUAGE="de-DE,bg;q=0.8,en;q=0.5")
    assert "Go to the lobby" in get(client, "/", HTTP_ACCEPT_LANGUAGE="de-DE,fr;q=0.8")


def test_the_switchers_cookie_beats_the_browsers_language(ann):
    client = Client()
    client.force_login(ann)
    response = client.post("/i18n/setlang/", {"language": "bg", "next": "/lobby/"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302 and client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "bg"
    assert "Играй сега" in get(client, "/lobby/", HTTP_ACCEPT_LANGUAGE="en")
    client.post("/i18n/setlang/", {"language": "en", "next": "/lobby/"})
    assert "Play now" in get(client, "/lobby/", HTTP_ACCEPT_LANGUAGE="bg")


def test_flash_messages_and_refusals_from_the_services_are_bulgarian(ann):
    client = Client(HTTP_ACCEPT_LANGUAGE="bg")
    client.force_login(ann)
    first = client.post("/profile/daily-bonus/", follow=True).content.decode()
    assert "Дневен бонус: 500 чипа са добавени в портфейла ви." in first
    second = client.post("/profile/daily-bonus/", follow=True).content.decode()
    assert "Вече взехте днешния бонус; следващият е след 24 ч. 0 мин." in second
    # A table opened in Bulgarian is named in Bulgarian, and the form speaks Bulgarian.
    form = get(client, "/tables/new/")
    assert "Време за ход (секунди)" in form and "Частна (влиза се с покана)" in form
    bad = client.post("/tables/new/", {"stake": "10", "seat_count": "9", "turn_seconds": "1"})
    text = bad.content.decode()
    assert bad.status_code == 400
    assert "Времето за ход е поне 5 секунди." in text and "Моля, поправете" in text


def test_the_chip_history_words_the_rooms_own_memos_and_keeps_staffs(ann):
    from accounts.services import wallet_adjust

    staff = make_player("boss")
    staff.is_staff = staff.is_superuser = True  # wallet_adjust needs its permission; a superuser has all
    staff.save()
    wallet_adjust(user=ann, amount=5, reason="за турнира", staff_user=staff)
    html = get(nav_client(ann, True), "/profile/", HTTP_ACCEPT_LANGUAGE="bg")
    assert "бонус при регистрация" in html and "чипове за добре дошли" in html
    assert "корекция от администрацията" in html and "за турнира" in html


def test_a_password_reset_e_mail_asked_for_in_bulgarian_is_in_bulgarian(ann):
    ann.email = "ann@example.com"
    ann.save()
    client = Client(HTTP_ACCEPT_LANGUAGE="bg")
    page = get(client, "/accounts/password/reset/")
    assert "Възстановяване на парола" in page
    client.post("/accounts/password/reset/", {"email": "ann@example.com"})
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert "Възстановяване на парола" in message.subject
    assert "Получавате този имейл, защото Вие или някой друг е поискал смяна на парола" in message.body
    assert "вашето потребителско име е ann" in message.body
    assert message.body.startswith("Здравейте от Свара!")  # the room's own frame around allauth's words
    assert "Благодарим ви, че играете свара при нас!" in message.body
    assert "receiving this" not in message.body
    # The same request in English gets the English e-mail.
    Client(HTTP_ACCEPT_LANGUAGE="en").post("/accounts/password/reset/", {"email": "ann@example.com"})
    assert "Password Reset" in mail.outbox[1].subject and "receiving this" in mail.outbox[1].body
    assert mail.outbox[1].body.startswith("Hello from the Svara room!")


def test_chip_counts_are_grouped_by_thousands_in_both_languages(ann):
    for language, thousand in (("en", "1,000"), ("bg", "1\xa0000")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(ann)
        page = client.get("/profile/").content.decode()
        assert f'<span class="amount">{thousand}</span>' in page, language  # the header
        assert f'<strong id="wallet-balance">{thousand}</strong>' in page, language


# ---------------------------------------------------------------- the catalogue

PYTHON_FORMAT = re.compile(r"%\((\w+)\)[sd]")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_message_in_the_catalogue_has_its_bulgarian():
    catalogue = polib.pofile(str(CATALOGUE))
    assert len(catalogue) > 500
    missing = [e.msgid for e in catalogue if not e.obsolete and not e.translated()]
    assert missing == []
    assert [e.msgid for e in catalogue if "fuzzy" in e.flags] == []


def test_every_translation_keeps_its_placeholders():
    for entry in polib.pofile(str(CATALOGUE)):
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in translations:
            assert set(PYTHON_FORMAT.findall(text)) == set(PYTHON_FORMAT.findall(entry.msgid)), entry.msgid
            if "python-brace-format" in entry.flags:
                assert _fields(text) == _fields(entry.msgid), entry.msgid


def test_card_and_game_words_are_the_players():
    """The site's words for the game agree with the rules pages (the terms players use)."""
    words = {e.msgid: e.msgstr for e in polib.pofile(str(CATALOGUE)) if not e.msgctxt}
    assert words["PASS"] == "ПАС" and words["RAISE"] == "ВДИГАМ"
    assert words["CALL %(amount)s"].startswith("ПЛАЩАМ")
    assert words["DARK %(amount)s"].startswith("НА ТЪМНО")
    assert words["JOIN (%(fee)s)"].startswith("ВЛИЗАМ")
    assert "свара" in words["%(name)s joins the svara"]
    assert "таван" in words["the most you can raise to is %(cap)s (the cap)"]
    home = next(
        text for msgid, text in words.items() if msgid.startswith("Three cards each; suits and sevens")
    )
    assert "чечак" in home and "свара" in home
