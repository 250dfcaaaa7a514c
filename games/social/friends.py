"""Friends: a request the other player accepts or declines, who is online and at which public table,
and invitations to the table one sits at (docs/playing.md, "Friends").

Each pair of players has at most one ``Friendship`` row (lowest id first): a pending request or a
friendship. Two requests sent at once meet on that row's unique constraint, and the later one finds
the other's request and accepts it: one friendship, never two requests. Blocking is the ignore list
(games/social/ignores.py): ignoring a player ends any friendship or request between the two, and a
player who ignores you takes neither your requests nor your invitations.

A player on a break from play (a time-out or a self-exclusion, accounts/services/responsible.py)
sends no requests or invitations and is shown none: no notices, no invitations.

Requests and invitations are counted per player in the shared cache (every process sees the same
counts): more than ``REQUEST_LIMIT`` requests an hour or ``INVITATION_LIMIT`` invitations in ten
minutes are refused with a message saying so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services.responsible import active_break
from games import kinds
from games.live import presence
from games.models import Friendship, Ignore, Seat, Table, TableInvitation
from games.social.refusals import Refused

Status = Friendship.Status

REQUEST_LIMIT, REQUEST_WINDOW = 20, 3600  # friend requests per player per hour
INVITATION_LIMIT, INVITATION_WINDOW = 10, 600  # invitations per player per ten minutes
INVITATION_LIFETIME = timedelta(minutes=30)  # an invitation older than this is not shown
ROOM_KINDS = kinds.names_where(in_lobby=True)  # the kinds of table friends see and are invited to
SEEN_FOR = 45  # seconds a page's last call keeps its player "online" (pages call every 15 s)


class FriendRefused(Refused):
    """Not done; ``str()`` says why, in the active language."""


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _row(a: int, b: int, *, lock: bool = False) -> Friendship | None:
    low, high = _pair(a, b)
    rows = Friendship.objects.filter(low_id=low, high_id=high)
    if lock:
        rows = rows.select_for_update()
    return rows.first()


def on_break(*, user: User) -> bool:
    """A time-out or a self-exclusion in force: no requests or invitations either way."""
    return active_break(user=user) is not None


def _blocks(blocker: User, other: User) -> bool:
    return Ignore.objects.filter(user_id=blocker.pk, ignored_id=other.pk).exists()


def _spend(*, user: User, what: str, limit: int, window: int, message: str) -> None:
    """Count one more ``what`` for the player; refuse (counting nothing) past ``limit`` a window."""
    # The live state's prefix keeps test runs (and tests) apart in one shared Redis.
    key = f"{settings.LIVE_STATE_PREFIX}friends:{what}:{user.pk}"
    cache.add(key, 0, timeout=window)  # the window starts with its first use
    try:
        count = cache.incr(key)
    except ValueError:  # the window ran out between the two calls
        cache.set(key, 1, timeout=window)
        count = 1
    if count > limit:
        cache.decr(key)
        raise FriendRefused(message)


def _check_other(*, user: User, other: User | None) -> User:
    if other is not None and other.computer_level:
        raise FriendRefused(_("The computer's players do not make friends."))
    if other is None or not other.is_active:
        raise FriendRefused(_("There is no such player."))
    if other.pk == user.pk:
        raise FriendRefused(_("You cannot be your own friend."))
    return other


def send_request(*, user: User, to: User | None) -> Friendship:
    """Ask ``to`` to be friends; if ``to`` has already asked ``user``, that request is accepted."""
    to = _check_other(user=user, other=to)
    name = {"name": to.get_username()}
    if on_break(user=user):
        raise FriendRefused(_("You are on a break from play: no friend requests until it ends."))
    if _blocks(user, to):
        raise FriendRefused(_("You have blocked %(name)s: unblock them first.") % name)
    if _blocks(to, user):
        raise FriendRefused(_("%(name)s does not take friend requests from you.") % name)
    current = _row(user.pk, to.pk)
    if current is not None:
        return _answer_existing(user=user, to=to, row_id=current.pk)
    _spend(
        user=user,
        what="requests",
        limit=REQUEST_LIMIT,
        window=REQUEST_WINDOW,
        message=_("You have sent too many friend requests: try again in an hour."),
    )
    low, high = _pair(user.pk, to.pk)
    try:
        with transaction.atomic():
            return Friendship.objects.create(low_id=low, high_id=high, requested_by=user)
    except IntegrityError:  # ``to`` asked at the same moment: their request is there now
        row = _row(user.pk, to.pk)
        if row is None:  # and already withdrawn: nothing to answer, ask again
            raise FriendRefused(_("Something changed meanwhile: please try again.")) from None
        return _answer_existing(user=user, to=to, row_id=row.pk)


def _answer_existing(*, user: User, to: User, row_id: int) -> Friendship:
    """A request to someone the pair already has a row with: say so, or accept theirs."""
    name = {"name": to.get_username()}
    with transaction.atomic():
        row = Friendship.objects.select_for_update().filter(pk=row_id).first()
        if row is None:
            raise FriendRefused(_("Something changed meanwhile: please try again."))
        if row.status == Status.FRIENDS:
            raise FriendRefused(_("You and %(name)s are already friends.") % name)
        if row.requested_by_id == user.pk:
            raise FriendRefused(_("You have already asked %(name)s; they have not answered yet.") % name)
        row.status, row.accepted_at = Status.FRIENDS, timezone.now()
        row.save(update_fields=["status", "accepted_at"])
        return row


def accept(*, user: User, requester: User | None) -> Friendship:
    """Accept ``requester``'s request to ``user``."""
    requester = _check_other(user=user, other=requester)
    with transaction.atomic():
        row = _row(user.pk, requester.pk, lock=True)
        if row is None or row.status != Status.PENDING or row.requested_by_id != requester.pk:
            raise FriendRefused(
                _("There is no request from %(name)s to accept.") % {"name": requester.get_username()}
            )
        row.status, row.accepted_at = Status.FRIENDS, timezone.now()
        row.save(update_fields=["status", "accepted_at"])
        return row


def _delete_pending(*, user: User, other: User, requested_by: User, message: str) -> None:
    deleted, _rows = Friendship.objects.filter(
        low_id=_pair(user.pk, other.pk)[0],
        high_id=_pair(user.pk, other.pk)[1],
        status=Status.PENDING,
        requested_by_id=requested_by.pk,
    ).delete()
    if not deleted:
        raise FriendRefused(message)


def decline(*, user: User, requester: User | None) -> None:
    """Turn down ``requester``'s request (they may ask again later)."""
    requester = _check_other(user=user, other=requester)
    _delete_pending(
        user=user,
        other=requester,
        requested_by=requester,
        message=_("There is no request from %(name)s to decline.") % {"name": requester.get_username()},
    )


def cancel(*, user: User, to: User | None) -> None:
    """Withdraw ``user``'s own request to ``to``."""
    to = _check_other(user=user, other=to)
    _delete_pending(
        user=user,
        other=to,
        requested_by=user,
        message=_("You have no request to %(name)s to withdraw.") % {"name": to.get_username()},
    )


def remove(*, user: User, friend: User | None) -> None:
    """End the friendship (either of the two may)."""
    friend = _check_other(user=user, other=friend)
    low, high = _pair(user.pk, friend.pk)
    deleted, _rows = Friendship.objects.filter(low_id=low, high_id=high, status=Status.FRIENDS).delete()
    if not deleted:
        raise FriendRefused(_("You and %(name)s are not friends.") % {"name": friend.get_username()})


def forget_between(*, user_id: int, other_id: int) -> None:
    """A block (an ignore): no friendship, request or invitation is left between the two."""
    low, high = _pair(user_id, other_id)
    Friendship.objects.filter(low_id=low, high_id=high).delete()
    TableInvitation.objects.filter(
        Q(sender_id=user_id, recipient_id=other_id) | Q(sender_id=other_id, recipient_id=user_id)
    ).delete()


def are_friends(*, user: User, other: User) -> bool:
    low, high = _pair(user.pk, other.pk)
    return Friendship.objects.filter(low_id=low, high_id=high, status=Status.FRIENDS).exists()


def relation(*, user: User, other: User) -> str:
    """What ``other`` is to ``user``: "friends", "asked" (user asked), "asking" (other asked) or ""."""
    row = _row(user.pk, other.pk)
    if row is None:
        return ""
    if row.status == Status.FRIENDS:
        return "friends"
    return "asked" if row.requested_by_id == user.pk else "asking"


# ---- invitations


def invite(*, user: User, friend: User | None, table: Table | None) -> TableInvitation:
    """Invite a friend to the table ``user`` sits at; they see it on their next page call."""
    friend = _check_other(user=user, other=friend)
    name = {"name": friend.get_username()}
    if on_break(user=user):
        raise FriendRefused(_("You are on a break from play: no invitations until it ends."))
    if not are_friends(user=user, other=friend):
        raise FriendRefused(_("You can invite only your friends, and %(name)s is not one yet.") % name)
    if table is None or not Seat.objects.filter(table_id=table.pk, user_id=user.pk).exists():
        raise FriendRefused(_("You can invite a friend only to a table you sit at."))
    if table.policy.creator_only:
        raise FriendRefused(_("A practice table is yours alone: there is nobody to invite to it."))
    if not table.policy.in_lobby:  # a tournament's table seats its entrants only
        raise FriendRefused(_("Friends are invited to the room's tables only."))
    if table.status != Table.Status.OPEN:
        raise FriendRefused(_("This table is closed."))
    if on_break(user=friend):
        raise FriendRefused(_("%(name)s is not taking invitations now.") % name)
    since = timezone.now() - INVITATION_LIFETIME
    if TableInvitation.objects.filter(
        sender_id=user.pk, recipient_id=friend.pk, table_id=table.pk, created_at__gte=since, dismissed_at=None
    ).exists():
        raise FriendRefused(_("You have already invited %(name)s to this table.") % name)
    _spend(
        user=user,
        what="invitations",
        limit=INVITATION_LIMIT,
        window=INVITATION_WINDOW,
        message=_("You have sent too many invitations: wait a few minutes."),
    )
    return TableInvitation.objects.create(sender=user, recipient=friend, table=table)


@dataclass(frozen=True)
class Invitation:
    id: int
    sender: str
    table_id: int
    table_name: str
    private: bool
    invite_code: str


@dataclass(frozen=True)
class Notices:
    invitations: list[Invitation]
    requests: int  # friend requests waiting for the player's answer


def notices(*, user: User) -> Notices:
    """What waits for the player: invitations still worth following, and requests to answer.
    Nothing for a player on a break."""
    if on_break(user=user):
        return Notices(invitations=[], requests=0)
    since = timezone.now() - INVITATION_LIFETIME
    rows = (
        TableInvitation.objects.filter(
            recipient_id=user.pk, dismissed_at=None, created_at__gte=since, table__status=Table.Status.OPEN
        )
        .select_related("sender", "table")
        .order_by("-created_at", "-pk")[:10]
    )
    friends = friend_ids(user=user)
    invitations = [
        Invitation(
            id=row.pk,
            sender=row.sender.get_username(),
            table_id=row.table_id,
            table_name=row.table.name,
            private=row.table.private,
            invite_code=row.table.invite_code,
        )
        for row in rows
        if row.sender_id in friends  # a friendship ended since: its invitations go with it
    ]
    requests = Friendship.objects.filter(
        Q(low_id=user.pk) | Q(high_id=user.pk), status=Status.PENDING
    ).exclude(requested_by_id=user.pk)
    return Notices(invitations=invitations, requests=requests.count())


def dismiss(*, user: User, invitation_id: object) -> None:
    """The recipient puts an invitation away (followed or not)."""
    try:
        pk = int(str(invitation_id))
    except ValueError:
        raise FriendRefused(_("There is no such invitation.")) from None
    done = TableInvitation.objects.filter(pk=pk, recipient_id=user.pk, dismissed_at=None).update(
        dismissed_at=timezone.now()
    )
    if not done:
        raise FriendRefused(_("There is no such invitation."))


def follow(*, user: User, invitation_id: int) -> Invitation | None:
    """The recipient follows an invitation's link: it is put away, and where it leads returned;
    None when it is not theirs, or no longer shown (too old, dismissed, its table closed)."""
    for invitation in notices(user=user).invitations:
        if invitation.id == invitation_id:
            TableInvitation.objects.filter(pk=invitation_id).update(dismissed_at=timezone.now())
            return invitation
    return None


# ---- who is online, and where


def _seen_key(user_id: int) -> str:
    return f"{settings.LIVE_STATE_PREFIX}friends:seen:{user_id}"


def mark_seen(*, user: User) -> None:
    """The player has a page open now (each page of a signed-in player calls every 15 s)."""
    cache.set(_seen_key(user.pk), time.time(), timeout=SEEN_FOR)


def friend_ids(*, user: User) -> set[int]:
    rows = Friendship.objects.filter(Q(low_id=user.pk) | Q(high_id=user.pk), status=Status.FRIENDS)
    return {row.other(user.pk) for row in rows.only("low_id", "high_id")}


@dataclass(frozen=True)
class Friend:
    user: User
    online: bool
    tables: list[Table]  # the open public room tables they have open now (never private or practice)


@dataclass(frozen=True)
class FriendsPage:
    friends: list[Friend]
    incoming: list[User]  # asked the player, waiting for an answer
    outgoing: list[User]  # the player asked, waiting for theirs
    blocked: list[User]
    my_tables: list[Table]  # the tables the player sits at, to invite friends to
    on_break: bool


def friends_page(*, user: User) -> FriendsPage:
    """Everything the friends page shows, in a few queries."""
    rows = list(Friendship.objects.filter(Q(low_id=user.pk) | Q(high_id=user.pk)))
    people = User.objects.in_bulk({row.other(user.pk) for row in rows})
    friend_ids_ = {row.other(user.pk) for row in rows if row.status == Status.FRIENDS}
    where = presence.tables_of(user_ids=friend_ids_)
    public = Table.objects.in_bulk({table for tables in where.values() for table in tables})
    seen = cache.get_many([_seen_key(pk) for pk in friend_ids_])
    friends = []
    for pk in friend_ids_:
        tables = sorted(
            (
                public[t]
                for t in where.get(pk, ())
                if t in public
                and not public[t].private
                and public[t].policy.in_lobby
                and public[t].status == Table.Status.OPEN
            ),
            key=lambda table: table.pk,
        )
        online = bool(where.get(pk)) or _seen_key(pk) in seen
        friends.append(Friend(user=people[pk], online=online, tables=tables))
    friends.sort(key=lambda f: (not f.online, f.user.get_username().lower()))

    def waiting(asked_by_me: bool) -> list[User]:
        return sorted(
            (
                people[row.other(user.pk)]
                for row in rows
                if row.status == Status.PENDING and (row.requested_by_id == user.pk) == asked_by_me
            ),
            key=lambda u: u.get_username().lower(),
        )

    blocked = list(
        User.objects.filter(pk__in=Ignore.objects.filter(user_id=user.pk).values("ignored_id")).order_by(
            "username"
        )
    )
    my_tables = list(
        Table.objects.filter(
            seat_rows__user_id=user.pk, status=Table.Status.OPEN, kind__in=ROOM_KINDS
        ).order_by("pk")
    )
    return FriendsPage(
        friends=friends,
        incoming=waiting(False),
        outgoing=waiting(True),
        blocked=blocked,
        my_tables=my_tables,
        on_break=on_break(user=user),
    )
