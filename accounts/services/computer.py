"""The computer's accounts: one per practice level, which no one can log in to or register.

A migration makes them (accounts/migrations/0007_computer_accounts.py); the practice tables find
them by ``User.computer_level``, so an account that merely has the name (``computer-hard`` signed
up before the name was reserved) never takes the computer's seats or sees its hands.
"""

from __future__ import annotations

from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction

from accounts.models import User
from accounts.usernames import COMPUTER_LEVELS, computer_username


def computer_account(*, level: str, name: str) -> User:
    """The computer's account for ``level`` (``name`` is its display name, e.g. "Computer (hard)").

    Made again when missing: the migration made it, but a test database is emptied between tests.
    """
    if level not in COMPUTER_LEVELS:
        raise ValueError(f"no computer plays at level {level!r}")
    found = User.objects.filter(computer_level=level).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return _make_computer_account(level=level, name=name)
    except IntegrityError:  # made meanwhile by another request
        return User.objects.get(computer_level=level)


def _make_computer_account(*, level: str, name: str) -> User:
    # As the migration does: inactive, an unusable password, and ``computer-<level>`` unless a
    # person already holds that name (then ``computer-<level>-<n>``): the identity is the level.
    base = computer_username(level=level)
    username, n = base, 1
    while User.objects.filter(username__iexact=username).exists():
        n += 1
        username = f"{base}-{n}"
    return User.objects.create(
        username=username,
        first_name=name,
        is_active=False,
        password=make_password(None),
        computer_level=level,
    )
