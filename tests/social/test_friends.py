"""Friends as services: requests, answers, blocking, invitations, the limits, players on a break,
and who is shown at which table."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.db import close_old_connections
from django.utils import timezone

from accounts.services.responsible import take_break
from games.live import presence
from games.models import Friendship, Ignore, Seat, TableInvitation
from games.social import friends
from games.social.friends import FriendRefused
from games.social.ignores import ignore_player, unignore_player
from tests.live.tablekit import make_player, make_table
from tests.social.kit import a_computer

pytestmark = pytest.mark.django_db


def befriend(a, b) -> None:
    friends.send_request(user=a, to=b)
    friends.accept(user=b, requester=a)


def seat(user, table, position: int = 0) -> None:
    Seat.objects.create(table=table, user=user, position=position)


def test_a_request_accepted_makes_friends_both_ways():
    ann, bob = make_player("ann"), make_player("bob")
    row = friends.send_request(user=ann, to=bob)
    assert row.status == Friendship.Status.PENDING
    assert friends.relation(user=ann, other=bob) == "asked"
    assert friends.relation(user=bob, other=ann) == "asking"
    assert friends.notices(user=bob).requests == 1
    assert friends.notices(user=ann).requests == 0
    friends.accept(user=bob, requester=ann)
    assert friends.are_friends(user=ann, other=bob) and friends.are_friends(user=bob, other=ann)
    assert friends.friend_ids(user=ann) == {bob.pk} and friends.friend_ids(user=bob) == {ann.pk}
    assert friends.notices(user=bob).requests == 0


def test_the_one_who_asked_cannot_accept_their_own_request():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    with pytest.raises(FriendRefused, match="no request from bob"):
        friends.accept(user=ann, requester=bob)
    assert friends.relation(user=ann, other=bob) == "asked"


def test_decline_cancel_and_remove():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    friends.decline(user=bob, requester=ann)
    assert not Friendship.objects.exists()
    with pytest.raises(FriendRefused, match="no request from ann to decline"):
        friends.decline(user=bob, requester=ann)
    friends.send_request(user=ann, to=bob)  # asked again after a decline
    friends.cancel(user=ann, to=bob)
    assert not Friendship.objects.exists()
    with pytest.raises(FriendRefused, match="no request to bob"):
        friends.cancel(user=ann, to=bob)
    befriend(ann, bob)
    friends.remove(user=bob, friend=ann)  # either may end it
    assert not friends.are_friends(user=ann, other=bob)
    with pytest.raises(FriendRefused, match="not friends"):
        friends.remove(user=ann, friend=bob)


@pytest.mark.parametrize(
    ("target", "message"),
    [("self", "your own friend"), ("nobody", "no such player"), ("computer", "computer")],
)
def test_bad_targets_are_refused_and_nothing_stored(target, message):
    ann = make_player("ann")
    other = {"self": ann, "nobody": None, "computer": a_computer()}[target]
    with pytest.raises(FriendRefused, match=message):
        friends.send_request(user=ann, to=other)
    assert not Friendship.objects.exists()


def test_a_second_request_is_refused_and_one_to_a_friend_too():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    with pytest.raises(FriendRefused, match="already asked bob"):
        friends.send_request(user=ann, to=bob)
    friends.accept(user=bob, requester=ann)
    with pytest.raises(FriendRefused, match="already friends"):
        friends.send_request(user=bob, to=ann)
    assert Friendship.objects.count() == 1


def test_asking_someone_who_asked_you_accepts_their_request():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    row = friends.send_request(user=bob, to=ann)
    assert row.status == Friendship.Status.FRIENDS
    assert Friendship.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_requests_sent_at_once_make_one_friendship(postgres_db):
    """Both press "Add" at the same moment, on two connections: one row, and it is a friendship."""
    for round_ in range(5):
        ann, bob = make_player(f"ann{round_}"), make_player(f"bob{round_}")
        start = threading.Barrier(2)
        errors: list[BaseException] = []

        def ask(user, to, start=start, errors=errors):
            try:
                start.wait()
                friends.send_request(user=user, to=to)
            except BaseException as exc:  # handed to the test's thread
                errors.append(exc)
            finally:
                close_old_connections()

        threads = [threading.Thread(target=ask, args=pair) for pair in ((ann, bob), (bob, ann))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
        assert errors == []
        rows = list(Friendship.objects.filter(low__in=(ann, bob)))
        assert [r.status for r in rows] == [Friendship.Status.FRIENDS]


def test_blocking_ends_the_friendship_and_refuses_requests_both_ways():
    ann, bob = make_player("ann"), make_player("bob")
    befriend(ann, bob)
    ignore_player(user=bob, ignored=ann)  # blocking is the ignore list
    assert not Friendship.objects.exists()
    with pytest.raises(FriendRefused, match="bob does not take friend requests from you"):
        friends.send_request(user=ann, to=bob)
    with pytest.raises(FriendRefused, match="You have blocked ann"):
        friends.send_request(user=bob, to=ann)
    assert not Friendship.objects.exists()
    unignore_player(user=bob, ignored=ann)
    friends.send_request(user=ann, to=bob)
    assert friends.relation(user=bob, other=ann) == "asking"


def test_a_pending_request_goes_with_a_block():
    ann, bob = make_player("ann"), make_player("bob")
    friends.send_request(user=ann, to=bob)
    ignore_player(user=bob, ignored=ann)
    assert not Friendship.objects.exists()
    assert friends.notices(user=bob).requests == 0


def test_requests_are_rate_limited_with_a_message(monkeypatch):
    monkeypatch.setattr(friends, "REQUEST_LIMIT", 2)
    ann = make_player("ann")
    others = [make_player(f"p{i}") for i in range(3)]
    friends.send_request(user=ann, to=others[0])
    friends.send_request(user=ann, to=others[1])
    with pytest.raises(FriendRefused, match="too many friend requests"):
        friends.send_request(user=ann, to=others[2])
    assert Friendship.objects.count() == 2
    # A refused request (a duplicate) is not counted against anyone else's limit.
    bob = make_player("bob")
    friends.send_request(user=bob, to=others[2])


# ---- invitations


def test_a_friend_is_invited_to_the_table_one_sits_at_and_follows_the_link():
    ann, bob = make_player("ann"), make_player("bob")
    befriend(ann, bob)
    oak = make_table(name="Oak")
    seat(ann, oak)
    friends.invite(user=ann, friend=bob, table=oak)
    waiting = friends.notices(user=bob)
    assert [(i.sender, i.table_name, i.table_id) for i in waiting.invitations] == [("ann", "Oak", oak.pk)]
    assert friends.notices(user=ann).invitations == []
    followed = friends.follow(user=bob, invitation_id=waiting.invitations[0].id)
    assert followed is not None and followed.table_id == oak.pk
    assert friends.notices(user=bob).invitations == []  # followed: put away
    assert friends.follow(user=bob, invitation_id=waiting.invitations[0].id) is None


def test_only_the_recipient_follows_or_dismisses_an_invitation():
    ann, bob, eve = make_player("ann"), make_player("bob"), make_player("eve")
    befriend(ann, bob)
    oak = make_table(name="Oak")
    seat(ann, oak)
    row = friends.invite(user=ann, friend=bob, table=oak)
    assert friends.follow(user=eve, invitation_id=row.pk) is None
    with pytest.raises(FriendRefused, match="no such invitation"):
        friends.dismiss(user=eve, invitation_id=row.pk)
    with pytest.raises(FriendRefused, match="no such invitation"):
        friends.dismiss(user=bob, invitation_id="x1")
    friends.dismiss(user=bob, invitation_id=row.pk)
    assert friends.notices(user=bob).invitations == []


def test_invitations_refused_with_a_reason_and_nothing_stored(monkeypatch):
    ann, bob, eve = make_player("ann"), make_player("bob"), make_player("eve")
    befriend(ann, bob)
    oak, elm = make_table(name="Oak"), make_table(name="Elm")
    seat(ann, oak)
    with pytest.raises(FriendRefused, match="only your friends"):
        friends.invite(user=ann, friend=eve, table=oak)
    with pytest.raises(FriendRefused, match="only to a table you sit at"):
        friends.invite(user=ann, friend=bob, table=elm)
    with pytest.raises(FriendRefused, match="only to a table you sit at"):
        friends.invite(user=ann, friend=bob, table=None)
    with pytest.raises(FriendRefused, match="your own friend"):
        friends.invite(user=ann, friend=ann, table=oak)
    practice = make_table(name="Mine", kind="practice")
    seat(ann, practice)
    with pytest.raises(FriendRefused, match="practice"):
        friends.invite(user=ann, friend=bob, table=practice)
    contest = make_table(name="Cup", kind="tournament")
    seat(ann, contest)
    with pytest.raises(FriendRefused, match="room's tables only"):
        friends.invite(user=ann, friend=bob, table=contest)
    assert not TableInvitation.objects.exists()
    friends.invite(user=ann, friend=bob, table=oak)
    with pytest.raises(FriendRefused, match="already invited bob"):
        friends.invite(user=ann, friend=bob, table=oak)
    assert TableInvitation.objects.count() == 1


def test_invitations_are_rate_limited(monkeypatch):
    monkeypatch.setattr(friends, "INVITATION_LIMIT", 1)
    ann, bob, cid = make_player("ann"), make_player("bob"), make_player("cid")
    befriend(ann, bob)
    befriend(ann, cid)
    oak = make_table(name="Oak")
    seat(ann, oak)
    friends.invite(user=ann, friend=bob, table=oak)
    with pytest.raises(FriendRefused, match="too many invitations"):
        friends.invite(user=ann, friend=cid, table=oak)
    assert TableInvitation.objects.count() == 1


def test_old_invitations_and_those_of_a_former_friend_are_not_shown():
    ann, bob = make_player("ann"), make_player("bob")
    befriend(ann, bob)
    oak = make_table(name="Oak")
    seat(ann, oak)
    row = friends.invite(user=ann, friend=bob, table=oak)
    TableInvitation.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - friends.INVITATION_LIFETIME - timedelta(seconds=1)
    )
    assert friends.notices(user=bob).invitations == []
    friends.invite(user=ann, friend=bob, table=oak)  # the old one no longer counts as a duplicate
    assert len(friends.notices(user=bob).invitations) == 1
    friends.remove(user=ann, friend=bob)
    assert friends.notices(user=bob).invitations == []


def test_a_block_takes_the_invitations_with_it():
    ann, bob = make_player("ann"), make_player("bob")
    befriend(ann, bob)
    oak = make_table(name="Oak")
    seat(ann, oak)
    friends.invite(user=ann, friend=bob, table=oak)
    ignore_player(user=bob, ignored=ann)
    assert not TableInvitation.objects.exists()
    with pytest.raises(FriendRefused, match="only your friends"):
        friends.invite(user=ann, friend=bob, table=oak)
    assert Ignore.objects.count() == 1


@pytest.mark.parametrize("period", ["24h", "6months"])
def test_a_player_on_a_break_sends_and_gets_no_invitations_or_notices(period):
    ann, bob, cid = make_player("ann"), make_player("bob"), make_player("cid")
    befriend(ann, bob)
    befriend(ann, cid)
    friends.send_request(user=make_player("dan"), to=bob)
    oak = make_table(name="Oak")
    seat(ann, oak)
    seat(bob, oak, position=1)
    take_break(user=bob, period=period)
    with pytest.raises(FriendRefused, match="bob is not taking invitations"):
        friends.invite(user=ann, friend=bob, table=oak)
    with pytest.raises(FriendRefused, match="break from play"):
        friends.invite(user=bob, friend=ann, table=oak)
    with pytest.raises(FriendRefused, match="break from play"):
        friends.send_request(user=bob, to=make_player("eve"))
    assert friends.notices(user=bob) == friends.Notices(invitations=[], requests=0)
    assert not TableInvitation.objects.exists()
    friends.invite(user=ann, friend=cid, table=oak)  # the others carry on


# ---- who is online, and where


def test_the_friends_page_shows_public_tables_only_and_who_is_online():
    ann, bob, cid, dan = (make_player(n) for n in ("ann", "bob", "cid", "dan"))
    for other in (bob, cid, dan):
        befriend(ann, other)
    oak = make_table(name="Oak")
    hidden = make_table(name="Hidden", private=True)
    mine = make_table(name="Practice", kind="practice")
    seat(ann, oak)
    async_to_sync(presence.socket_opened)(socket_id="s1", user_id=bob.pk, table_id=oak.pk)
    async_to_sync(presence.socket_opened)(socket_id="s2", user_id=cid.pk, table_id=hidden.pk)
    async_to_sync(presence.socket_opened)(socket_id="s3", user_id=cid.pk, table_id=mine.pk)
    friends.send_request(user=make_player("eve"), to=ann)
    friends.send_request(user=ann, to=make_player("fay"))
    page = friends.friends_page(user=ann)
    shown = {f.user.username: (f.online, [t.name for t in f.tables]) for f in page.friends}
    # cid is online (a table open) but at private and practice tables only: no table shown.
    assert shown == {"bob": (True, ["Oak"]), "cid": (True, []), "dan": (False, [])}
    assert [u.username for u in page.incoming] == ["eve"]
    assert [u.username for u in page.outgoing] == ["fay"]
    assert page.my_tables == [oak]
    # A page call marks a player online without a table.
    friends.mark_seen(user=dan)
    shown = {f.user.username: f.online for f in friends.friends_page(user=ann).friends}
    assert shown["dan"] is True
    async_to_sync(presence.socket_closed)(socket_id="s1")
    bob_now = next(f for f in friends.friends_page(user=ann).friends if f.user == bob)
    assert (bob_now.online, bob_now.tables) == (False, [])
