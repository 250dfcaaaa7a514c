"""The computer's accounts: made by a migration, unable to log in, found by their level, and their
names reserved at sign-up (through allauth's real sign-up view)."""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from accounts.models import User
from accounts.services.computer import COMPUTER_LEVELS
from games.live.practice import bot_user
from games.models import Seat, Table
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def sign_up(client, username: str):
    return client.post(
        "/accounts/signup/",
        {
            "username": username,
            "email": f"x{abs(hash(username))}@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "adult": "on",
        },
    )


def test_the_migration_made_the_three_accounts_and_none_can_log_in(client):
    # Non-transactional: this test sees the database as the migrations left it.
    computers = {u.computer_level: u for u in User.objects.exclude(computer_level="")}
    assert set(computers) == set(COMPUTER_LEVELS)
    for level, user in computers.items():
        assert user.username == f"computer-{level}"
        assert user.first_name == f"Computer ({level})"
        assert not user.is_active and not user.has_usable_password()
        assert bot_user(level=level) == user
    for password in ("", "!", PASSWORD):
        client.post("/accounts/login/", {"login": "computer-hard", "password": password})
        assert not client.get("/accounts/profile/").wsgi_request.user.is_authenticated


@pytest.mark.parametrize(
    "name",
    [
        "computer-hard",
        "Computer-Hard",
        "computer_easy",
        "computer.normal",
        "computer-hard2",
        "admin",
        "Staff",
    ],
)
def test_sign_up_refuses_the_reserved_names(client, name):
    before = User.objects.count()
    response = sign_up(client, name)
    assert response.status_code == 200
    assert "is reserved for the room" in response.content.decode()
    assert User.objects.count() == before
    bg = sign_up(client.__class__(HTTP_ACCEPT_LANGUAGE="bg"), name).content.decode()
    assert "е запазено за залата" in bg


@pytest.mark.django_db(transaction=True)  # the practice view is async: its queries run in other threads
def test_a_person_holding_the_name_never_gets_the_computers_seat(client, make_user):
    # An account named computer-hard from before the name was reserved: a person's, who can log in.
    User.objects.filter(computer_level="hard").delete()
    squatter = make_user(username="computer-hard")
    player = make_user(username="ann")
    client.force_login(player)
    client.post("/practice/", {"level": "hard"})
    table = Table.objects.get(kind="practice", created_by=player)
    computer = Seat.objects.get(table=table, bot_level="hard").user
    assert computer != squatter
    assert computer.computer_level == "hard" and not computer.is_active and not computer.has_usable_password()
    assert computer.username == "computer-hard-2"
    assert not Seat.objects.filter(user=squatter).exists()


def test_the_migration_keeps_the_account_made_on_first_use_and_leaves_a_persons_alone(make_user):
    migration = importlib.import_module("accounts.migrations.0007_computer_accounts")
    User.objects.exclude(computer_level="").delete()
    # As the old code made it on first use: inactive, unusable password, never logged in.
    old = User.objects.create(username="computer-easy", first_name="Computer (easy)", is_active=False)
    old.set_unusable_password()
    old.save()
    person = make_user(username="computer-hard")
    migration.create_computer_accounts(apps, None)
    old.refresh_from_db()
    person.refresh_from_db()
    assert old.computer_level == "easy"
    assert person.computer_level == "" and person.is_active and person.has_usable_password()
    hard = User.objects.get(computer_level="hard")
    assert hard.username == "computer-hard-2" and not hard.is_active and not hard.has_usable_password()
    assert User.objects.get(computer_level="normal").username == "computer-normal"
    migration.create_computer_accounts(apps, None)  # again: nothing new
    assert User.objects.exclude(computer_level="").count() == 3
