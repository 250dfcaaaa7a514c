"""The chat on the table page (first paint: the last lines, escaped, with the form and the quick
phrases), the ignore buttons' views and the ignored players' page, and the table form's setting."""

# ruff: noqa: RUF001

from __future__ import annotations

import pytest
from django.utils import timezone

from games.models import ChatMessage, ChatMode, Ignore, Table
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def page(client, user, table, language: str = "en") -> str:
    client.force_login(user)
    response = client.get(f"/table/{table.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_the_last_lines_escaped_with_the_form(client):
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table()
    ChatMessage.objects.create(table=table, user=ann, text="<script>x</script> see http://a.example")
    ChatMessage.objects.create(table=table, user=ann, text="gone", deleted_at=timezone.now())
    ChatMessage.objects.create(table=table, user=ann, text="Good luck", phrase="gl")
    text = page(client, bob, table)
    assert 'id="table-chat"' in text and 'role="log"' in text
    assert "&lt;script&gt;x&lt;/script&gt;" in text and "<script>x</script>" not in text
    assert 'href="http://a.example' not in text
    assert "gone" not in text
    assert 'href="/players/ann/"' in text
    assert 'name="text" maxlength="200"' in text and 'for="chat-text"' in text
    assert "/report/message/" in text and 'hx-post="/chat/ignore/"' in text
    # One's own lines have no ignore or report buttons.
    assert "/report/message/" not in page(client, ann, table)


def test_quick_phrases_in_the_readers_language(client):
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table()
    ChatMessage.objects.create(table=table, user=ann, text="Good luck", phrase="gl")
    text = page(client, bob, table, language="bg")
    assert "Успех" in text and "Хубава ръка" in text  # the line, and the phrase button


def test_chat_off_shows_no_form(client):
    ann = make_player("ann")
    text = page(client, ann, make_table(chat=ChatMode.OFF))
    assert "Chat is off at this table." in text and 'id="chat-form"' not in text


def test_ignore_and_unignore_through_the_views(client):
    ann, bob = make_player("ann"), make_player("bob")
    client.force_login(ann)
    response = client.post("/chat/ignore/", {"user": bob.pk}, HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert Ignore.objects.filter(user=ann, ignored=bob).exists()
    listing = client.get("/chat/ignored/").content.decode()
    assert "bob" in listing and "/chat/unignore/" in listing
    response = client.post("/chat/unignore/", {"user": bob.pk, "next": "/chat/ignored/"})
    assert response.status_code == 302 and response["Location"] == "/chat/ignored/"
    assert not Ignore.objects.exists()
    assert "You ignore nobody." in client.get("/chat/ignored/").content.decode()


@pytest.mark.parametrize("user", ["", "abc", "999999", "1.5", "١"])
def test_ignoring_nobody_is_refused(client, user):
    ann = make_player("ann")
    client.force_login(ann)
    assert client.post("/chat/ignore/", {"user": user}).status_code == 404
    assert not Ignore.objects.exists()


def test_ignoring_oneself_is_refused_with_a_notice(client):
    ann = make_player("ann")
    client.force_login(ann)
    response = client.post("/chat/ignore/", {"user": ann.pk}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and "yourself" in response.content.decode()
    assert not Ignore.objects.exists()


def test_the_ignore_views_want_a_post_and_a_login(client):
    ann = make_player("ann")
    assert client.post("/chat/ignore/", {"user": ann.pk}).status_code == 302  # to log in
    client.force_login(ann)
    assert client.get("/chat/ignore/").status_code == 405


def test_the_table_form_takes_the_chat_setting(client):
    ann = make_player("ann")
    client.force_login(ann)
    form = client.get("/tables/new/").content.decode()
    assert 'name="chat"' in form
    data = {"stake": "10", "seat_count": "2", "dark_play": "on", "turn_seconds": "30"}
    assert client.post("/tables/new/", {**data, "name": "quiet", "chat": "players"}).status_code == 302
    assert Table.objects.get(name="quiet").chat == ChatMode.PLAYERS
    assert client.post("/tables/new/", {**data, "name": "default"}).status_code == 302
    assert Table.objects.get(name="default").chat == ChatMode.EVERYONE
    response = client.post("/tables/new/", {**data, "name": "bad", "chat": "loud"})
    assert response.status_code == 400 and "Choose who may chat" in response.content.decode()
    assert not Table.objects.filter(name="bad").exists()


def test_a_player_page_ignores_and_unignores(client):
    ann, bob = make_player("ann"), make_player("bob")
    client.force_login(ann)
    text = client.get("/players/bob/").content.decode()
    assert 'action="/chat/ignore/"' in text and "Ignore their chat messages" in text
    response = client.post("/chat/ignore/", {"user": bob.pk, "next": "/players/bob/"})
    assert response["Location"] == "/players/bob/"
    text = client.get("/players/bob/").content.decode()
    assert 'action="/chat/unignore/"' in text and "You no longer see bob" in text
    assert 'id="ignore-form"' not in client.get("/players/ann/").content.decode()  # not oneself
    # Somewhere else is not where a plain form goes back to.
    response = client.post("/chat/unignore/", {"user": bob.pk, "next": "https://evil.example/"})
    assert response["Location"] == "/chat/ignored/"


def test_an_https_form_never_sends_the_player_on_to_plain_http(client):
    ann, bob = make_player("ann"), make_player("bob")
    client.force_login(ann)
    data = {"user": bob.pk, "next": "http://testserver/chat/ignored/"}
    response = client.post("/chat/ignore/", data, secure=True)
    assert response.status_code == 302 and not response["Location"].startswith("http://")
