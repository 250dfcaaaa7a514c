"""Each table socket speaks its viewer's language: chosen at connect from the switcher's cookie
or the browser's Accept-Language, for buttons, refusals and the table's log alike, while an
English socket at the same table stays English. Also: the log and notices are stored once, as
entries, and read the same in English as the English lines stored beside them.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

import html
import string

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import translation

from games.engine.cards import parse_card
from games.engine.hand import REFUSALS, IllegalAction
from games.live import service, testing
from games.live.entries import entry, log_text, notice_text
from games.live.transitions import ENGINE_REFUSALS, engine_refusal
from games.live.views import build_view
from games.tables.sockets import language_from_scope
from games.tables.ui.cards import card_face
from games.tables.ui.log import render_entry, worded_log, worded_notice
from svara_site.asgi import application
from tests.live.tablekit import Viewer, make_player, make_table, session_cookie
from tests.staff_roles import superuser

pytestmark = pytest.mark.django_db(transaction=True)

LEFT = ["7C", "8C", "8D"]  # the player left of the dealer
DEALER = ["AH", "KH", "9S"]
DECK = [LEFT[0], DEALER[0], LEFT[1], DEALER[1], LEFT[2], DEALER[2]]


async def connect(user, table_id: int, *, headers: list[tuple[bytes, bytes]] = (), path: str = "") -> Viewer:
    cookie = await sync_to_async(session_cookie)(user)
    if any(name == b"cookie" for name, _ in headers):
        # One Cookie header, as a browser sends it: the session and the language together.
        extra = b"; ".join(value for name, value in headers if name == b"cookie")
        cookie = (b"cookie", cookie[1] + b"; " + extra)
        headers = [h for h in headers if h[0] != b"cookie"]
    comm = WebsocketCommunicator(
        application,
        path or f"/ws/table/{table_id}/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"), cookie, *headers],
    )
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    viewer = Viewer(comm)
    await viewer.receive()
    return viewer


BG_COOKIE = (b"cookie", b"django_language=bg")
BG_BROWSER = (b"accept-language", b"bg-BG,bg;q=0.9,en;q=0.6")


def labels(cards: list[str], lang: str) -> set[str]:
    with translation.override(lang):
        return {card_face(parse_card(c)).name for c in cards}


# ---------------------------------------------------------------- choosing the language


@pytest.mark.parametrize(
    ("headers", "cookies", "expected"),
    [
        ([], None, "en"),
        ([(b"accept-language", b"bg")], None, "bg"),
        ([(b"Accept-Language", b"bg-BG,bg;q=0.9")], None, "bg"),
        ([(b"accept-language", b"de-DE,bg;q=0.8,en;q=0.5")], None, "bg"),
        ([(b"accept-language", b"de-DE,fr;q=0.8")], None, "en"),
        ([(b"accept-language", b"en-US,en;q=0.9,bg;q=0.8")], None, "en"),
        ([(b"accept-language", b"en"), (b"cookie", b"sessionid=x; django_language=bg")], None, "bg"),
        ([(b"accept-language", b"bg")], {"django_language": "en"}, "en"),  # the switcher beats the browser
        ([(b"accept-language", b"bg")], {"django_language": "xx"}, "bg"),  # a bad cookie is ignored
    ],
)
def test_the_sockets_language_is_the_cookie_else_the_browsers_else_english(headers, cookies, expected):
    scope = {"headers": headers}
    if cookies is not None:
        scope["cookies"] = cookies
    assert language_from_scope(scope) == expected


# ---------------------------------------------------------------- one table, two languages


@pytest.mark.parametrize("ann_deals", [True, False], ids=["bob acts first", "ann acts first"])
async def test_a_bulgarian_and_an_english_player_at_one_table_each_get_their_own_language(ann_deals):
    ann = await sync_to_async(make_player)("ann")  # Bulgarian through the switcher's cookie
    bob = await sync_to_async(make_player)("bob")  # English: no preference at all
    cem = await sync_to_async(make_player)("cem")  # watches with a Bulgarian browser
    table = await sync_to_async(make_table)(dark_play=False)
    a = await connect(ann, table.pk, headers=[BG_COOKIE])
    b = await connect(bob, table.pk)
    c = await connect(cem, table.pk, headers=[BG_BROWSER])

    # Refused in the database layer (sync_to_async keeps the language): Bulgarian for ann only.
    await a.send(verb="sit", position="0", buy_in="5", action_id="s-0")
    await a.until(lambda f: '<p class="error">' in f)
    assert a.error() == "бай-инът е между 200 и 1000 чипа"
    await b.send(verb="sit", position="0", buy_in="5", action_id="s-1")
    await b.until(lambda f: '<p class="error">' in f)
    assert b.error() == "the buy-in is between 200 and 1000 chips"

    # One log line, stored once, read by each in their own language.
    await a.send(verb="sit", position="0", buy_in="500", action_id="s-a")
    await b.send(verb="sit", position="1", buy_in="500", action_id="s-b")
    await a.until(lambda f: "bob сяда с 500 чипа" in f and "ann сяда с 500 чипа" in f)
    await b.until(lambda f: "bob sits down with 500" in f and "ann sits down with 500" in f)
    await c.until(lambda f: "bob сяда с 500 чипа" in f and "ann сяда с 500 чипа" in f)
    assert "sits down" not in a.last and "сяда" not in b.last
    assert "Стани от масата" in a.last and "Почивка" in a.last and "Leave table" not in a.last
    assert "Leave table" in b.last and "Sit out" in b.last
    assert "Гледате." in c.last and "You are watching" not in c.last

    await testing.stack_decks(table_id=table.pk, decks=[DECK])
    # The dealer moves one seat clockwise from the last one: set the last so that ann (seat 0) or
    # bob (seat 1) deals, and both players' turns are seen in their languages.
    await service.update_table(table.pk, lambda s: {**s.doc, "dealer": 1 if ann_deals else 0})
    state = await service.start_next_hand(table_id=table.pk)
    await a.until(lambda f: "Ръка 1" in f and "Започва ръка 1" in f)
    await b.until(lambda f: "Hand 1" in f and "Hand 1 begins" in f)
    await c.until(lambda f: "Ръка 1" in f)
    ann_is_dealer = state.doc["seats"][state.doc["dealer"]]["user_id"] == ann.pk
    assert ann_is_dealer == ann_deals
    ann_cards, bob_cards = (DEALER, LEFT) if ann_is_dealer else (LEFT, DEALER)
    # Card names as players say them, and never the other player's cards, in either language.
    seen_a, seen_b, seen_c = (set(_aria_labels(v.last)) for v in (a, b, c))
    assert labels(ann_cards, "bg") <= seen_a and not labels(bob_cards, "bg") & seen_a
    assert labels(bob_cards, "en") <= seen_b and not labels(ann_cards, "en") & seen_b
    assert not labels(LEFT + DEALER, "bg") & seen_c

    # The left of the dealer acts first: bob when ann deals, else ann.
    actor, waiting = (b, a) if ann_is_dealer else (a, b)
    await a.drain()
    await b.drain()
    await waiting.act("raise", 20)  # not their turn
    await actor.act("raise", 100000)  # above the cap
    if actor is a:
        assert a.error() == "най-много можете да вдигнете до 490 (таванът)"
        assert html.unescape(b.error()) == "not your turn: it is ann's"
        # Nothing to call yet: FOLD reads PASS.
        assert "ВДИГАМ" in a.last and ">ПАС<" in a.last and "Вие сте на ход." in a.last
        assert "RAISE" not in a.last and "PASS" not in a.last
    else:
        assert b.error() == "the most you can raise to is 490 (the cap)"
        assert a.error() == "не сте на ход: на ход е bob"
        assert "RAISE" in b.last and ">PASS<" in b.last and "Your turn." in b.last
        assert "bob е на ход" in a.last

    # A legal raise: everyone's log says so in their language.
    await actor.act("raise", 20)
    name = "ann" if actor is a else "bob"
    await a.until(lambda f: f"{name} вдига до 20" in f)
    await b.until(lambda f: f"{name} raises to 20" in f)
    await c.until(lambda f: f"{name} вдига до 20" in f)
    other = waiting
    await other.drain()
    await other.act("call")
    sealed = 'class="fair-sealed"'  # the fair-deck badge once the hand is over
    await a.until(lambda f: sealed in f and "спечели" in f)
    await b.until(lambda f: sealed in f and " won " in f)
    await c.until(lambda f: sealed in f)
    assert " печели " in a.last and " wins " in b.last
    assert "серия" in a.last and "seed series" in b.last  # the seed waits for the series' end
    for viewer in (a, b, c):
        await viewer.comm.disconnect()


def _aria_labels(frame: str) -> list[str]:
    import re

    return re.findall(r'class="card [a-z ]+" role="img" aria-label="([^"]+)"', frame)


async def test_the_lobby_socket_speaks_the_viewers_language():
    ann = await sync_to_async(make_player)("ann")
    a = await connect(ann, 0, headers=[BG_BROWSER], path="/ws/lobby/")
    assert "Още няма отворени маси." in a.last and "No open tables" not in a.last
    b = await connect(ann, 0, path="/ws/lobby/")
    assert "No open tables yet." in b.last
    table = await sync_to_async(make_table)(name="oak")
    await service.notify_lobby(table.pk)  # what a seat change sends: the list comes again
    assert "Седни или гледай" in await a.receive() and "Игра на тъмно" in a.last
    for viewer in (a, b):
        await viewer.comm.disconnect()


# ---------------------------------------------------------------- entries and refusals


def _sample_params(template: str) -> dict[str, object]:
    return {name: f"<{name}>" for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_each_engine_refusal_is_worded_by_its_code_in_english_as_the_engine_says_it_and_in_bulgarian(code):
    params = _sample_params(REFUSALS[code])
    exc = IllegalAction(REFUSALS[code].format(**params), code=code, params=params)
    assert code in ENGINE_REFUSALS
    assert engine_refusal(exc) == str(exc)  # English: exactly the engine's text
    with translation.override("bg"):
        worded = engine_refusal(exc)
    assert worded != str(exc)
    for value in params.values():
        assert str(value) in worded


def test_a_refusal_the_site_has_no_words_for_keeps_the_engines_english():
    with translation.override("bg"):
        assert engine_refusal(IllegalAction("something new")) == "something new"


async def test_the_stored_log_and_notice_read_in_english_exactly_as_their_english_lines():
    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    table = await sync_to_async(make_table)(dark_play=True)
    await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=500)
    await service.table_sit(user=bob, table_id=table.pk, position=1, buy_in=300)
    await testing.stack_decks(table_id=table.pk, decks=[DECK])
    state = await service.start_next_hand(table_id=table.pk)
    from games.live.document import hand_of

    hand = hand_of(state.doc)
    acting = state.doc["seats"][state.doc["hand"]["positions"][hand.to_act]]["user_id"]
    first = next(u for u in (ann, bob) if u.pk == acting)
    state = await service.table_act(
        user=first, table_id=table.pk, verb="dark", amount=None, client_version=state.version, action_id="d1"
    )
    await service.table_sit_out(user=ann, table_id=table.pk, sitting_out=True)
    state = await service.load_table_state(table.pk)
    doc = state.doc
    english = log_text(doc)
    assert len(english) == len(doc["log"]) >= 5
    assert all(isinstance(line, dict) for line in doc["log"])  # entries only, no English copy
    view = build_view(doc, user_id=None, version=state.version)
    assert view["log"] is doc["log"]  # entries, worded by the regions in each viewer's language
    assert worded_log(table_id=table.pk, entries=view["log"]).lines == english
    with translation.override("bg"):
        bulgarian = worded_log(table_id=table.pk, entries=view["log"]).lines
    assert "ann сяда с 500 чипа" in bulgarian and "ann почива" in bulgarian
    # A move's line carries what it put in.
    assert any(line.endswith("bets 10 dark") for line in english)
    assert any(line.endswith("залага 10 на тъмно") for line in bulgarian)
    assert not set(bulgarian) & set(english)
    # The whole document stays plain JSON (the store and the channel layer carry it).
    import json

    assert json.loads(json.dumps(doc)) == doc


async def test_a_cancelled_hands_notice_names_the_reason_in_each_language_and_keeps_staffs_words():
    from games.live import staff

    ann = await sync_to_async(make_player)("ann")
    bob = await sync_to_async(make_player)("bob")
    boss = await sync_to_async(superuser)()  # closing a table needs its permission
    table = await sync_to_async(make_table)()
    await service.table_sit(user=ann, table_id=table.pk, position=0, buy_in=500)
    await service.table_sit(user=bob, table_id=table.pk, position=1, buy_in=500)
    await service.start_next_hand(table_id=table.pk)
    state = await staff.table_close(table_id=table.pk, staff_user=boss, reason="проверка")
    doc = state.doc
    assert notice_text(doc) == "The table was closed by staff: проверка"
    view = build_view(doc, user_id=None, version=state.version)
    assert worded_notice(view["notice"]) == notice_text(doc)
    with translation.override("bg"):
        assert worded_notice(view["notice"]) == "Масата беше затворена от администрацията: проверка"
        bulgarian = worded_log(table_id=table.pk, entries=view["log"]).lines
    assert "Ръка 1 е отменена: Масата беше затворена от администрацията: проверка" in bulgarian


def test_a_document_written_before_entries_shows_its_english_lines():
    doc = {
        "table": {"stake": 10, "seat_count": 2, "kind": "cash"},
        "seats": [None, None],
        "dealer": None,
        "hand": None,
        "ended": None,
        "last": None,
        "timer": None,
        "log": ["ann sits down with 500"],
        "notice": "an old notice",
    }
    with translation.override("bg"):
        view = build_view(doc, user_id=None, version=1)
        lines = worded_log(table_id=None, entries=view["log"]).lines
        assert lines == ["ann sits down with 500"] and worded_notice(view["notice"]) == "an old notice"


def test_names_of_a_three_way_svara_are_joined_in_each_language():
    line = entry(
        "Svara! %(names)s tie on %(points)s; the pot of %(pot)s is replayed (join for %(fee)s)",
        names=["ann", "bob", "cem"],
        points=20,
        pot=120,
        fee=60,
    )
    assert render_entry(line).startswith("Svara! ann and bob and cem tie on 20; the pot of 120 is replayed")
    with translation.override("bg"):
        assert render_entry(line).startswith("Свара! ann и bob и cem са равни на 20 точки; потът от 120")
