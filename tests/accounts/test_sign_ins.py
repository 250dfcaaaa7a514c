"""Where players sign in from: each login records its address; staff find the accounts behind
an address from the users' search, and see a player's addresses on their page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import SignIn
from accounts.services.sign_ins import client_address
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def log_in(client, user, address: str):
    response = client.post(LOGIN, {"login": user.username, "password": PASSWORD}, REMOTE_ADDR=address)
    assert response.status_code == 302, response
    client.logout()


def test_a_login_records_the_address_it_came_from(client, make_user):
    ann = make_user(username="ann")
    log_in(client, ann, "10.1.2.3")
    log_in(client, ann, "2001:db8::7")
    assert sorted(SignIn.objects.filter(user=ann).values_list("address", flat=True)) == [
        "10.1.2.3",
        "2001:db8::7",
    ]


def test_a_failed_login_records_nothing(client, make_user):
    ann = make_user(username="ann")
    client.post(LOGIN, {"login": "ann", "password": "wrong"}, REMOTE_ADDR="10.1.2.3")
    assert not SignIn.objects.filter(user=ann).exists()


@pytest.mark.parametrize(
    ("meta", "address"), [({"REMOTE_ADDR": "10.0.0.1"}, "10.0.0.1"), ({}, None), ({"REMOTE_ADDR": "x"}, None)]
)
def test_the_client_address_is_an_address_or_none(meta, address):
    assert client_address(meta) == address


def test_staff_find_every_account_behind_an_address_and_see_a_players_addresses(client, make_user, staff):
    ann, bob, cem = make_user(username="ann"), make_user(username="bob"), make_user(username="cem")
    for user, address in ((ann, "10.1.2.3"), (bob, "10.1.2.3"), (bob, "10.9.9.9"), (cem, "192.168.0.5")):
        log_in(client, user, address)
    client.force_login(staff)
    found = client.get("/admin/accounts/user/?q=10.1.2.3")
    assert sorted(u.username for u in found.context["cl"].result_list) == ["ann", "bob"]
    by_prefix = client.get("/admin/accounts/user/?q=10.")
    assert sorted(u.username for u in by_prefix.context["cl"].result_list) == ["ann", "bob"]
    assert [u.username for u in client.get("/admin/accounts/user/?q=cem").context["cl"].result_list] == [
        "cem"
    ]

    page = client.get(reverse("admin:accounts_user_change", args=[bob.pk])).content.decode()
    assert "/admin/accounts/user/?q=10.1.2.3" in page and "10.9.9.9" in page
    assert "1 time, last" in page
