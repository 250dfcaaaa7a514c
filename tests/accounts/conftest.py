"""Fixtures for the accounts tests: users, staff, funded players and a ledger snapshot."""

from __future__ import annotations

import itertools
import uuid

import pytest

from accounts.models import LedgerAccount, LedgerEntry, LedgerTransaction, User
from accounts.services import grant_signup_bonus, wallet_adjust

PASSWORD = "correct horse battery staple"
_names = itertools.count(1)


@pytest.fixture(autouse=True)
def _own_cache(settings):
    """allauth counts failed logins in the cache: a fresh local cache per test keeps counts from one
    test out of the next, and never flushes a Redis that other suites share."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    }
    # The default hasher is slow on purpose; these tests make many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def new_user(*, password: str | None = PASSWORD, **fields) -> User:
    n = next(_names)
    fields.setdefault("username", f"player{n}")
    fields.setdefault("email", f"player{n}@example.com")
    return User.objects.create_user(password=password, **fields)


@pytest.fixture
def make_user():
    return new_user


@pytest.fixture
def staff(db) -> User:
    return new_user(username=f"staff{next(_names)}", is_staff=True, is_superuser=True)


@pytest.fixture
def player(db) -> User:
    """A player with the 1,000 sign-up chips."""
    user = new_user()
    grant_signup_bonus(user=user)
    return user


@pytest.fixture
def fund(staff):
    """fund(user, chips): set up a wallet with exactly ``chips`` more, recorded as a staff adjustment."""

    def _fund(user: User, chips: int) -> None:
        wallet_adjust(user=user, amount=chips, reason="test funds", staff_user=staff)

    return _fund


def ledger_snapshot() -> tuple:
    """Everything a refused operation must leave untouched."""
    return (
        tuple(LedgerAccount.objects.order_by("key").values_list("key", "balance")),
        LedgerTransaction.objects.count(),
        LedgerEntry.objects.count(),
    )


@pytest.fixture
def snapshot():
    return ledger_snapshot
