"""Staff as a room would set them up: real Django groups holding real permissions.

A superuser; a "moderator" group with view rights on the room's models plus "add ban"; a
"help desk" group with view rights plus "change user". ``staff_with`` makes one with view rights
plus exactly the permissions a test names.
"""

from __future__ import annotations

import itertools

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from accounts.models import User

ROOM_APPS = ("accounts", "games")
_names = itertools.count(1)


def _permissions(*names: str) -> list[Permission]:
    """Permissions by "app.codename"; every one of them must exist (a typo fails the test)."""
    query = Q(pk__in=[])
    for name in names:
        app, codename = name.split(".")
        query |= Q(content_type__app_label=app, codename=codename)
    found = list(Permission.objects.filter(query))
    assert len(found) == len(names), f"missing permissions among {names}"
    return found


def view_permissions() -> list[Permission]:
    room = Permission.objects.filter(content_type__app_label__in=ROOM_APPS)
    return list(room.filter(codename__startswith="view_"))


def group_with(name: str, *names: str) -> Group:
    group, _ = Group.objects.get_or_create(name=name)
    group.permissions.set([*view_permissions(), *_permissions(*names)])
    return group


def _staff(prefix: str, group: Group | None = None, **fields) -> User:
    name = f"{prefix}{next(_names)}"
    user = User.objects.create_user(username=name, password=None, is_staff=True, **fields)
    if group is not None:
        user.groups.add(group)
    return User.objects.get(pk=user.pk)  # fresh: no permission cache from before the group


def superuser() -> User:
    return _staff("boss", is_superuser=True)


def moderator() -> User:
    return _staff("mod", group_with("moderator", "accounts.add_ban"))


def help_desk() -> User:
    return _staff("help", group_with("help desk", "accounts.change_user"))


def staff_with(*names: str) -> User:
    """A staff member with view rights and exactly these permissions ("app.codename")."""
    return _staff("clerk", group_with(f"only {' '.join(names) or 'view'}", *names))
