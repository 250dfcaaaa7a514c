"""Staff lists that grow with play count up to a cap, never every row: the page costs the same
at a million rows, and a page past the cap is refused like any page past the end."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import admin_paging
from accounts.models import User
from accounts.services import grant_signup_bonus
from tests.staff_roles import superuser

pytestmark = pytest.mark.django_db

LISTS = [
    "/admin/accounts/ledgerentry/",
    "/admin/accounts/ledgertransaction/",
    "/admin/accounts/ledgeraccount/",
    "/admin/accounts/user/",
    "/admin/accounts/ban/",
    "/admin/accounts/staffaction/",
    "/admin/games/playedhand/",
    "/admin/games/tableevent/",
    "/admin/games/seat/",
    "/admin/games/table/",
]


@pytest.fixture
def boss(client):
    user = superuser()
    client.force_login(user)
    return user


def players(n: int) -> None:
    for _ in range(n):
        user = User.objects.create_user(username=f"p{User.objects.count()}", password=None)
        grant_signup_bonus(user=user)


def counts_in(queries) -> list[str]:
    return [q["sql"] for q in queries if re.search(r"\bCOUNT\(", q["sql"], re.IGNORECASE)]


@pytest.mark.parametrize("url", LISTS)
def test_a_growing_list_counts_only_up_to_the_cap(client, boss, url, monkeypatch):
    monkeypatch.setattr(admin_paging, "COUNT_CAP", 3)
    players(5)  # 5 wallets, sign-up bonuses and their entries
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    for sql in counts_in(captured):
        assert "LIMIT 3" in sql, sql  # a count of at most the cap, never of the whole table
    assert response.context["cl"].full_result_count is None


def test_past_the_cap_the_list_says_the_cap_and_pages_up_to_it(client, boss, monkeypatch):
    monkeypatch.setattr(admin_paging, "COUNT_CAP", 3)
    players(5)
    response = client.get("/admin/accounts/ledgerentry/")
    assert response.context["cl"].result_count == 3
    assert client.get("/admin/accounts/ledgerentry/?p=999").status_code in (200, 302)
    assert client.get("/admin/accounts/ledgerentry/?p=abc").status_code in (200, 302)


@pytest.mark.parametrize("language", ["en", "bg"])
def test_a_rows_action_box_is_the_markup_django_renders(language):
    """The growing lists write each row's box directly (Django's widget template costs a fifth of a
    100-row page): the same markup, escaped the same, in the staff member's language."""
    from django.contrib import admin
    from django.contrib.admin import ModelAdmin
    from django.utils import translation

    user = User.objects.create_user(username='ann<b>"&', password=None)
    growing = [a for a in admin.site._registry.values() if isinstance(a, admin_paging.GrowingListAdmin)]
    assert admin.site._registry[User] in growing
    with translation.override(language):
        for model_admin in growing:
            assert model_admin.action_checkbox(user) == ModelAdmin.action_checkbox(model_admin, user)
