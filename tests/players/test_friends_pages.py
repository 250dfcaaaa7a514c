"""The friends page and its forms through real requests: each action in English and Bulgarian,
bad input refused with a message and nothing changed, the player page's friend actions, and the
notices every page asks for."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Friendship, Ignore, Seat, TableInvitation
from games.social import friends
from tests.live.tablekit import make_player, make_table

pytestmark = pytest.mark.django_db


def signed_in(user, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def post(client: Client, name: str, **data) -> str:
    """Post a friends form and follow it back to the friends page: the page's text."""
    response = client.post(reverse(name), data, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("friends")
    return response.content.decode()


def test_request_accept_and_the_page_lists_both_sides():
    ann, bob = make_player("ann"), make_player("bob")
    a, b = signed_in(ann), signed_in(bob)
    page = post(a, "friend_request", user="BOB")  # the typed name, any case
    assert "Friend request sent to bob." in page
    assert 'id="outgoing"' in page and 'data-to="bob"' in page
    page = b.get(reverse("friends")).content.decode()
    assert 'data-from="ann"' in page
    page = post(b, "friend_accept", user="ann")
    assert "You and ann are friends now." in page
    assert 'data-friend="ann"' in page
    assert friends.are_friends(user=ann, other=bob)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ann", "You cannot be your own friend."),
        ("nobody-here", "There is no such player."),
        ("", "There is no such player."),
        ("x" * 400, "There is no such player."),
    ],
)
def test_bad_requests_say_why_and_change_nothing(typed, message):
    a = signed_in(make_player("ann"))
    page = post(a, "friend_request", user=typed)
    assert message in page
    assert not Friendship.objects.exists()


def test_a_request_to_someone_who_blocked_you_is_refused_in_bulgarian():
    ann, bob = make_player("ann"), make_player("bob")
    post(signed_in(bob), "friend_block", user="ann")
    assert Ignore.objects.filter(user=bob, ignored=ann).exists()
    page = post(signed_in(ann, "bg"), "friend_request", user="bob")
    assert "bob не приема покани за приятелство от вас." in page
    assert not Friendship.objects.exists()


def test_a_duplicate_request_is_refused():
    make_player("bob")
    a = signed_in(make_player("ann"))
    post(a, "friend_request", user="bob")
    assert "You have already asked bob; they have not answered yet." in post(a, "friend_request", user="bob")
    assert Friendship.objects.count() == 1


def test_invite_from_the_page_and_the_notices_lead_to_the_table():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    friends.accept(user=bob, requester=ann)
    oak = make_table(name="Oak")
    Seat.objects.create(table=oak, user=ann, position=0)
    a, b = signed_in(ann), signed_in(bob, "bg")
    page = a.get(reverse("friends")).content.decode()
    assert "Invite bob to Oak" in page
    page = post(a, "friend_invite", user="bob", table=str(oak.pk))
    assert "bob is invited to Oak." in page
    notices = b.get(reverse("friend_notices")).json()
    assert [item["text"] for item in notices["invitations"]] == ["ann ви кани на масата Oak."]
    assert "Към масата" in notices["html"]
    followed = b.get(notices["invitations"][0]["url"])
    assert followed.status_code == 302 and followed["Location"] == reverse("table", args=[oak.pk])
    assert b.get(reverse("friend_notices")).json()["invitations"] == []


def test_an_invitation_to_a_private_table_goes_through_its_invite_link():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    friends.accept(user=bob, requester=ann)
    hidden = make_table(name="Hidden", private=True)
    Seat.objects.create(table=hidden, user=ann, position=0)
    friends.invite(user=ann, friend=bob, table=hidden)
    b = signed_in(bob)
    url = b.get(reverse("friend_notices")).json()["invitations"][0]["url"]
    assert b.get(url)["Location"] == reverse("invite", args=[hidden.invite_code])


@pytest.mark.parametrize(
    ("who", "table", "message"),
    [
        ("eve", "oak", "You can invite only your friends, and eve is not one yet."),
        ("bob", "elm", "You can invite a friend only to a table you sit at."),
        ("bob", "999999", "You can invite a friend only to a table you sit at."),
        ("bob", "x", "You can invite a friend only to a table you sit at."),
    ],
)
def test_bad_invitations_say_why_and_store_nothing(who, table, message):
    ann, bob = make_player("ann"), make_player("bob")
    make_player("eve")
    friends.send_request(user=ann, to=bob)
    friends.accept(user=bob, requester=ann)
    oak, elm = make_table(name="Oak"), make_table(name="Elm")
    Seat.objects.create(table=oak, user=ann, position=0)
    table_field = {"oak": str(oak.pk), "elm": str(elm.pk)}.get(table, table)
    page = post(signed_in(ann), "friend_invite", user=who, table=table_field)
    assert message in page
    assert not TableInvitation.objects.exists()


def test_someone_elses_invitation_is_not_followed_nor_dismissed():
    ann, bob, eve = make_player("ann"), make_player("bob"), make_player("eve")
    friends.send_request(user=ann, to=bob)
    friends.accept(user=bob, requester=ann)
    oak = make_table(name="Oak")
    Seat.objects.create(table=oak, user=ann, position=0)
    row = friends.invite(user=ann, friend=bob, table=oak)
    e = signed_in(eve)
    response = e.get(reverse("friend_invitation", args=[row.pk]), follow=True)
    assert "This invitation is no longer open." in response.content.decode()
    assert e.post(reverse("friend_dismiss", args=[row.pk])).status_code == 400
    assert signed_in(bob).post(reverse("friend_dismiss", args=[row.pk])).status_code == 204
    assert TableInvitation.objects.get().dismissed_at is not None


def test_forms_take_posts_only_and_need_a_player():
    ann = make_player("ann")
    assert signed_in(ann).get(reverse("friend_request")).status_code == 405
    anonymous = Client()
    assert anonymous.get(reverse("friends")).status_code == 302
    assert anonymous.get(reverse("friend_notices")).status_code == 302


def test_the_player_page_offers_what_fits_the_relation():
    ann, bob = make_player("ann"), make_player("bob")
    a, b = signed_in(ann), signed_in(bob)
    bob_page = reverse("player_page", args=["bob"])
    assert "Add as a friend" in a.get(bob_page).content.decode()
    response = a.post(reverse("friend_request"), {"user": "bob", "next": bob_page}, follow=True)
    assert response.redirect_chain[-1][0] == bob_page
    assert "Withdraw the request" in response.content.decode()
    assert "Accept their friend request" in b.get(reverse("player_page", args=["ann"])).content.decode()
    friends.accept(user=bob, requester=ann)
    assert "Remove from friends" in a.get(bob_page).content.decode()
    assert "Add as a friend" not in signed_in(ann).get(reverse("player_page", args=["ann"])).content.decode()


def test_the_header_links_the_friends_page():
    page = signed_in(make_player("ann")).get(reverse("lobby")).content.decode()
    assert f'href="{reverse("friends")}"' in page
    assert 'id="friend-notices"' in page and "js/friends" in page
