"""The table page through Django's test client: who may open it, and what each viewer's first
paint holds (the socket then sends the same regions). Hands are driven through the table service."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync

from games.engine.hand import BETTING, DARK, JOIN
from games.live import service, testing
from games.live.document import hand_of
from tests.live.framecheck import label, labels_in
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

REGION_IDS = ("table-version", "table-notice", "table-seats", "table-pot", "table-actions", "table-log")


def page(client, user, table) -> str:
    client.force_login(user)
    response = client.get(f"/table/{table.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def sit(user, table, position: int, buy_in: int = 500) -> None:
    async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=buy_in)


def state(table):
    return async_to_sync(service.load_table_state)(table.pk)


def act(table, user, verb: str, amount: int | None = None) -> None:
    current = state(table)
    async_to_sync(service.table_act)(
        user=user,
        table_id=table.pk,
        verb=verb,
        amount=amount,
        client_version=current.version,
        action_id=f"{user.pk}-{current.version}",
    )


def to_act(table, users):
    """The user whose turn it is, and the hand."""
    doc = state(table).doc
    hand = hand_of(doc)
    position = doc["hand"]["positions"][hand.to_act]
    return next(u for u in users if u.pk == doc["seats"][position]["user_id"]), hand


def start_with(table, deck: list[str]) -> None:
    """Deal the next hand from this deck (the rest of the 32 cards follow in order)."""
    full = deck + [c for c in _all_cards() if c not in deck]
    async_to_sync(testing.stack_decks)(table_id=table.pk, decks=[full])
    async_to_sync(service.start_next_hand)(table_id=table.pk)


def keys_hint(text: str) -> str:
    """The hint as it reads: each key a span, set apart by the stylesheet's " · "."""
    hint = re.search(r'<p class="keys"><small>(.*?)</small></p>', text)
    assert hint, "no keys hint on the page"
    lead = re.sub(r"\s+", " ", hint.group(1).split("<span>", 1)[0]).strip()
    return " ".join([lead, " · ".join(re.findall(r"<span>(.*?)</span>", hint.group(1)))])


def seat_html(text: str, name: str) -> str:
    """The seat block holding ``name`` in the seats region."""
    seats = text[text.index('id="table-seats"') : text.index('id="table-pot"')]
    blocks = re.split(r'(?=<div class="seat )', seats)
    return next(b for b in blocks if f'<span class="name">{name}</span>' in b)


def last_move(seat: str) -> str | None:
    found = re.search(r'<div class="seat-move[^"]*">(.*?)</div>', seat)
    return found.group(1) if found else None


def seat_classes(seat: str) -> str:
    return " " + re.match(r'<div class="([^"]*)"', seat).group(1) + " "


def _all_cards() -> list[str]:
    return [r + s for s in "CDHS" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")]


def test_the_table_page_needs_a_login(client):
    table = make_table()
    response = client.get(f"/table/{table.pk}/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_unknown_table_is_404(client):
    client.force_login(make_player("ann"))
    assert client.get("/table/987654/").status_code == 404


def test_a_spectator_sees_free_seats_to_sit_at_and_no_buttons(client):
    table = make_table(name="Plovdiv", stake=50, seat_count=3)
    text = page(client, make_player("cat"), table)
    assert 'hx-ext="ws"' in text and f'ws-connect="/ws/table/{table.pk}/"' in text
    assert "/static/django_htmx/ext/hx-ws-2.min.js" in text and "/static/js/table.js" in text
    for region in REGION_IDS:
        assert f'id="{region}"' in text
    assert "Plovdiv" in text and "buy-in 1,000 to 5,000" in text
    # One sit-down form per free seat, buy-in pre-filled with the default and limited to §3's range.
    assert text.count('name="verb" value="sit"') == 3
    assert 'name="buy_in" min="1000" max="5000" step="50" value="2500"' in text
    assert "verb-" not in text  # no moves for someone who is not playing
    assert "You are watching" in text


def test_a_seated_player_sees_their_seat_and_its_controls_and_spectators_see_no_cards(client):
    ann, bob, cat = make_player("ann"), make_player("bob"), make_player("cat")
    table = make_table(dark_play=False)  # dealt at once: no dark round before the cards
    sit(ann, table, 0)
    text = page(client, ann, table)
    assert (
        "(you)" in text and "Leave table" in text and "Sit out" in text and 'name="verb" value="add"' in text
    )
    assert 'name="verb" value="sit"' not in text  # one seat per player
    assert "The next hand starts when two players are ready" in text

    sit(bob, table, 1)
    start_with(table, ["10H", "JS", "QH", "QS", "KH", "KS"])
    doc = state(table).doc
    # Heads-up, the deal starts with the player who is not the dealer and alternates.
    dealer = doc["dealer"]
    cards = {1 - dealer: ["10H", "QH", "KH"], dealer: ["JS", "QS", "KS"]}
    for position, user in enumerate((ann, bob)):
        text = page(client, user, table)
        mine = {label(c) for c in cards[position]}
        theirs = {label(c) for cs in cards.values() for c in cs} - mine
        assert labels_in(text) == mine, "own cards shown, nobody else's"
        assert not labels_in(text) & theirs
        assert text.count('aria-label="face-down card"') == 3  # the other player's hand, face down
        assert "Hand 1" in text and "Betting" in text
    spectator = page(client, cat, table)
    assert not labels_in(spectator) and spectator.count('aria-label="face-down card"') == 6
    assert "verb-" not in spectator
    assert 'class="dealer"' in spectator and "Seed hash" in spectator
    assert doc["hand"]["seed_hash"] in spectator and doc["hand"]["server_seed"] not in spectator


def test_dark_round_betting_raise_range_showdown_and_sealed_seed(client):
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table()  # stake 10
    sit(ann, table, 0)
    sit(bob, table, 1)
    start_with(table, ["10H", "JS", "QH", "QS", "KH", "7S"])
    users = (ann, bob)

    actor, hand = to_act(table, users)
    assert hand.phase == DARK
    doc_seed = state(table).doc["hand"]["server_seed"]
    text = page(client, actor, table)
    assert ">DARK 10<" in text and ">NO DARK<" in text and "verb-fold" not in text
    assert keys_hint(text) == "Keys: d dark · n no dark"  # only the keys of this round
    other = page(client, next(u for u in users if u != actor), table)
    assert "verb-" not in other and "to act" in other
    assert re.search(r'class="countdown turn-clock" data-deadline="[\d.]+"', text)

    act(table, actor, "decline")
    actor, hand = to_act(table, users)
    assert hand.phase == BETTING and hand.target == 0
    text = page(client, actor, table)
    assert ">PASS<" in text and "CALL" not in text  # nothing to call yet: FOLD reads PASS
    assert keys_hint(text) == "Keys: f pass · r raise amount"
    # RAISE: a number field and a slider limited to the legal range, quick buttons x2 x5 x10 MAX.
    low, high = hand.legal().raise_range
    assert f'name="amount" min="{low}" max="{high}"' in text
    assert f'class="raise-slider" min="{low}" max="{high}" step="10"' in text
    for quick in ("x2", "x5", "x10", "MAX"):
        assert f">{quick}</button>" in text
    assert f'data-amount="{high}" title="raise to {high}">MAX' in text

    act(table, actor, "raise", 40)
    caller, hand = to_act(table, users)
    text = page(client, caller, table)
    assert ">FOLD<" in text and ">CALL 40<" in text
    # The raiser's seat shows the move with its amount; the dark round's "no dark" went with it.
    assert last_move(seat_html(text, actor.username)) == "raise to 40"
    assert last_move(seat_html(text, caller.username)) is None
    assert keys_hint(text) == "Keys: f fold · c call · r raise amount"
    act(table, caller, "call")

    final = state(table)
    assert final.doc["hand"] is None
    for user in users:
        text = page(client, user, table)
        # The showdown: both hands face up with their points, the winner; the seed stays secret.
        assert labels_in(text) == {label(c) for c in ["10H", "JS", "QH", "QS", "KH", "7S"]}
        assert text.count(" points</div>") == 2 and "wins" in text
        # The result names the winning hand's points: hearts 10+Q+K, 30 against the spades' 27.
        assert '<span class="win-points">30 points</span>' in text
        assert 'class="fair-sealed"' in text and "server_seed" not in final.doc["last"]
        assert doc_seed not in text
        assert "raises to 40" in text and "calls 40" in text  # the hand's log, with the amounts


def test_a_svara_offers_join_with_its_fee_to_a_player_who_folded(client):
    ann, bob, cat = make_player("ann"), make_player("bob"), make_player("cat")
    users = (ann, bob, cat)
    table = make_table(seat_count=3, dark_play=False)
    for position, user in enumerate(users):
        sit(user, table, position)
    # Dealt one at a time: whoever sits where gets 10, J and Q of one suit (30 points each).
    start_with(table, ["10H", "10S", "10D", "JH", "JS", "JD", "QH", "QS", "QD"])
    for _ in range(10):
        actor, hand = to_act(table, users)
        if hand.phase != BETTING:
            break
        if actor == cat:
            act(table, cat, "fold")
        elif hand.target == 0:
            act(table, actor, "raise", 10)
        else:
            act(table, actor, "call")
    actor, hand = to_act(table, users)
    assert hand.phase == JOIN and actor == cat
    text = page(client, cat, table)
    fee = hand.join_fee
    assert f">JOIN ({fee})<" in text and ">SKIP<" in text and f"Svara! Join for {fee}" in text
    assert keys_hint(text) == "Keys: j join · s skip"
    assert "to match" not in text  # a join has a fee; nothing is matched
    # cat folded and is asked to join: her seat is the one to act, not "out of this hand" as well.
    for viewer in (text, page(client, ann, table)):
        seat = seat_html(viewer, cat.username)
        assert "to act" in seat and "out of this hand" not in seat and " out" not in seat_classes(seat)
    # The tied hands were shown at the svara's showdown (cat also sees her own folded hand).
    assert text.count(" points</div>") == 3 and len(labels_in(text)) == 9
    watcher = page(client, make_player("dan"), table)  # the folded hand is never shown to others
    assert "verb-" not in watcher and len(labels_in(watcher)) == 6 and watcher.count(" points</div>") == 2
    act(table, cat, "join")
    assert f"cat joins the svara for {fee}" in page(client, ann, table)  # the log says what it cost


@pytest.mark.django_db(transaction=True)
def test_the_connection_status_words_come_in_the_players_language(client):
    from django.contrib.auth import get_user_model

    from games.models import Table

    user = get_user_model().objects.create_user(username="ivo", password="pw-ivo-12345")
    client.force_login(user)
    table = Table.objects.create(name="t", stake=10)
    page = client.get(f"/table/{table.pk}/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert 'data-lost="връзката прекъсна, свързване отново…"' in page
    assert 'data-connected="свързан"' in page
    # One table socket too many (4429): the page says what to do, in the player's language.
    assert 'data-toomany="твърде много отворени маси: затворете страницата на друга маса' in page


def test_the_page_script_words_the_too_many_sockets_close_and_does_not_reconnect():
    from django.conf import settings

    script = (settings.BASE_DIR / "static" / "js" / "table.js").read_text()
    assert 'else if (code === 4429) status("toomany", "lost");' in script
    assert "[1006, 1011, 1012, 1013]" in script  # the only codes the extension reconnects after


def test_your_own_cards_stay_at_the_result_of_a_hand_you_folded_and_nobody_elses(client):
    ann, bob, cat = make_player("ann"), make_player("bob"), make_player("cat")
    table = make_table()
    sit(ann, table, 0)
    sit(bob, table, 1)
    start_with(table, ["10H", "JS", "QH", "QS", "KH", "7S"])
    users = (ann, bob)
    actor, hand = to_act(table, users)
    act(table, actor, "dark")  # the dark bet's seat says it, with the amount; so does the log
    other = next(u for u in users if u != actor)
    text = page(client, other, table)
    assert last_move(seat_html(text, actor.username)) == "dark 10" and "bets 10 dark" in text
    act(table, other, "decline")
    folder, hand = to_act(table, users)
    dealt = {u: labels_in(seat_html(page(client, u, table), u.username)) for u in users}
    assert all(len(cards) == 3 for cards in dealt.values())
    act(table, folder, "fold")
    winner = next(u for u in users if u != folder)
    assert state(table).doc["hand"] is None
    mine = page(client, folder, table)
    seat = seat_html(mine, folder.username)
    # Your own hand, dimmed, with its points; the winner's hand was not shown down: not to you.
    assert labels_in(seat) == dealt[folder] and " folded" in seat_classes(seat) and " points</div>" in seat
    assert labels_in(mine) == dealt[folder]
    theirs = page(client, winner, table)
    assert labels_in(theirs) == dealt[winner]  # the winner keeps their own, never the folder's
    assert not labels_in(page(client, cat, table))  # a spectator sees no hand that was not shown


def test_the_technical_controls_are_in_the_fairness_drawer_not_among_the_seats_controls(client):
    ann = make_player("ann")
    table = make_table(dark_play=False)
    sit(ann, table, 0)
    text = page(client, ann, table)
    (drawer,) = re.findall(r'<details class="table-fair" id="table-fair">(.*?)</details>', text, re.S)
    # Folded (no "open"), and whole: the chain head, the check's link and the client seed's form.
    assert "<summary>Fairness</summary>" in drawer and "History chain head" in drawer
    assert 'name="client_seed"' in drawer and 'value="seed"' in drawer and "#series" in drawer
    assert text.count('name="client_seed"') == 1  # not also among the seat's controls
