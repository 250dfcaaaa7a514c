"""Flows through the real views with Django's test client: sign-up, log in and out, rate limit,
password change and reset, profile, claims, and bans."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import LedgerTransaction
from accounts.services import (
    ban_user,
    grant_signup_bonus,
    hand_settle,
    seat_buy_in,
    seat_cash_out,
    wallet_adjust,
    wallet_balance,
)
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def log_in(client, login: str, password: str = PASSWORD):
    return client.post(LOGIN, {"login": login, "password": password})


def logged_in_user(client):
    return client.get(reverse("profile")).wsgi_request.user


# --- sign-up, log in, log out ---


def test_sign_up_gives_1000_chips_and_logs_in(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "vesela",
            "email": "vesela@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "adult": "on",
        },
    )
    assert response.status_code == 302
    user = logged_in_user(client)
    assert user.is_authenticated and user.username == "vesela"
    assert wallet_balance(user=user) == 1000
    assert LedgerTransaction.objects.filter(kind="signup_bonus").count() == 1

    page = client.get(reverse("profile")).content.decode()
    assert '<strong id="wallet-balance">1,000</strong>' in page
    assert "sign-up bonus" in page


def test_sign_up_is_refused_for_a_taken_username_and_grants_nothing(client, make_user):
    make_user(username="taken")
    response = client.post(
        "/accounts/signup/",
        {
            "username": "taken",
            "email": "new@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "adult": "on",
        },
    )
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert not LedgerTransaction.objects.exists()


def test_log_in_by_username_or_email_and_log_out(client, make_user):
    user = make_user(username="petar", email="petar@example.com")
    assert log_in(client, "petar").status_code == 302
    assert logged_in_user(client) == user
    client.post("/accounts/logout/")
    assert not logged_in_user(client).is_authenticated
    assert log_in(client, "petar@example.com").status_code == 302
    assert logged_in_user(client) == user


def test_a_wrong_password_is_refused(client, make_user):
    make_user(username="petar")
    response = log_in(client, "petar", "wrong password")
    assert response.status_code == 200
    assert "username and/or password you specified are not correct" in response.content.decode()
    assert not logged_in_user(client).is_authenticated


def test_failed_logins_are_rate_limited(client, make_user):
    # ACCOUNT_RATE_LIMITS: 5 failures per 5 minutes per login.
    make_user(username="target")
    for _ in range(5):
        assert "not correct" in log_in(client, "target", "guess").content.decode()
    blocked = log_in(client, "target", PASSWORD)
    assert "Too many failed login attempts" in blocked.content.decode()
    assert not logged_in_user(client).is_authenticated


def test_failed_logins_from_one_address_are_rate_limited(client, make_user):
    # ACCOUNT_RATE_LIMITS: 10 failures per minute per IP address, whichever names are tried.
    make_user(username="real")
    for n in range(10):
        assert "not correct" in log_in(client, f"nobody{n}", "guess").content.decode()
    blocked = log_in(client, "real", PASSWORD)
    assert "Too many failed login attempts" in blocked.content.decode()
    other_address = log_in(client.__class__(REMOTE_ADDR="10.1.2.3"), "real", PASSWORD)
    assert other_address.status_code == 302


def test_allauth_pages_use_the_site_layout(client):
    for url in (LOGIN, "/accounts/signup/", "/accounts/password/reset/"):
        page = client.get(url).content.decode()
        assert 'class="site-header"' in page, url
        assert "· Svara room</title>" in page, url
        assert '<main id="main" class="auth">' in page, url  # the forms' look (static/css/site.css)
    assert '<main id="main">' in client.get("/").content.decode()  # only allauth's pages are "auth"


# --- passwords ---


def test_password_change(client, make_user):
    make_user(username="maria")
    log_in(client, "maria")
    new = "a different long passphrase"
    response = client.post(
        "/accounts/password/change/", {"oldpassword": PASSWORD, "password1": new, "password2": new}
    )
    assert response.status_code == 302
    client.post("/accounts/logout/")
    assert log_in(client, "maria", PASSWORD).status_code == 200
    assert log_in(client, "maria", new).status_code == 302


def test_password_reset_by_email(client, make_user):
    make_user(username="ivan", email="ivan@example.com")
    response = client.post("/accounts/password/reset/", {"email": "ivan@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ivan@example.com"]
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mail.outbox[0].body).group(1)

    form_page = client.get(link, follow=True)
    new = "reset to something long"
    done = client.post(form_page.redirect_chain[-1][0], {"password1": new, "password2": new})
    assert done.status_code == 302
    assert log_in(client, "ivan", new).status_code == 302


# --- profile and claims ---


def test_profile_needs_login(client):
    response = client.get(reverse("profile"))
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)


@pytest.fixture
def signed_in(client, make_user):
    user = make_user()
    grant_signup_bonus(user=user)
    client.force_login(user)
    return user


def test_claiming_the_daily_bonus_twice_grants_once(client, signed_in):
    first = client.post(reverse("claim_daily_bonus"), follow=True)
    assert "Daily bonus: 500 chips added to your wallet." in first.content.decode()
    second = client.post(reverse("claim_daily_bonus"), follow=True)
    assert "already claimed today&#x27;s bonus" in second.content.decode()
    assert wallet_balance(user=signed_in) == 1500
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 1
    assert '<strong id="wallet-balance">1,500</strong>' in second.content.decode()


def test_claims_are_post_only(client, signed_in):
    assert client.get(reverse("claim_daily_bonus")).status_code == 405
    assert client.get(reverse("claim_refill")).status_code == 405
    assert wallet_balance(user=signed_in) == 1000


def test_refill_button(client, signed_in, staff):
    refused = client.post(reverse("claim_refill"), follow=True).content.decode()
    assert "you have 1,000" in refused
    wallet_adjust(user=signed_in, amount=-950, reason="test", staff_user=staff)
    granted = client.post(reverse("claim_refill"), follow=True).content.decode()
    assert "Refill: 950 chips added to your wallet." in granted
    again = client.post(reverse("claim_refill"), follow=True).content.decode()
    assert "you have 1,000" in again
    assert wallet_balance(user=signed_in) == 1000


def test_profile_shows_rows_paginated_newest_first(client, signed_in, staff):
    for i in range(1, 25):
        wallet_adjust(user=signed_in, amount=i, reason=f"gift number {i}", staff_user=staff)
    first = client.get(reverse("profile")).content.decode()
    assert first.count("<tr>") == 1 + 20  # header + 20 rows
    assert "gift number 24" in first and "gift number 5" in first and "gift number 4<" not in first
    assert "page 1" in first and 'href="?page=2"' in first  # no count of every entry
    second = client.get(reverse("profile"), {"page": 2}).content.decode()
    assert "gift number 4<" in second and "welcome chips" in second
    assert second.count("<tr>") == 1 + 5
    assert 'href="?page=3"' not in second and 'href="?page=1"' in second
    # A page that is no number, or past the end, is the first page.
    for bad in ("abc", "-1", "0", "99", "9" * 50, "2.5"):
        again = client.get(reverse("profile"), {"page": bad})
        assert again.status_code == 200 and "gift number 24" in again.content.decode(), bad


def test_profile_lists_hand_settlements_in_the_chip_history(client, signed_in, make_user):
    rival = make_user()
    grant_signup_bonus(user=rival)
    for user in (signed_in, rival):
        seat_buy_in(user=user, table_id=3, amount=500, idempotency_key=f"sit-{user.pk}")
    for n, won in enumerate([120, -40, 300, -10]):
        hand_settle(table_id=3, deltas={signed_in.pk: won, rival.pk: -won}, idempotency_key=f"h{n}")
    page = client.get(reverse("profile")).content.decode()
    assert "table 3" in page
    # Its hand figures are the player page's (games.standings): tests/players/test_one_summary.py.


def test_without_a_source_of_hand_figures_the_profile_shows_no_hands(client, signed_in):
    """``accounts`` alone (the games app hands in the standings' reader when it loads)."""
    from accounts.services import profile

    source = profile._hand_stats_source
    profile.provide_hand_stats(None)
    try:
        page = client.get(reverse("profile")).content.decode()
    finally:
        profile.provide_hand_stats(source)
    assert '<dd id="hands-played">0</dd>' in page and '<dd id="biggest-pot">0</dd>' in page


# --- bans ---


def test_a_banned_user_cannot_log_in_and_is_told_why(client, make_user, staff):
    user = make_user(username="cheater")
    ban_user(user=user, reason="multi-accounting", staff_user=staff)
    response = log_in(client, "cheater")
    assert response.status_code == 403
    text = response.content.decode()
    assert "This account is banned" in text and "multi-accounting" in text
    assert not logged_in_user(client).is_authenticated


def test_a_banned_user_with_a_wrong_password_learns_nothing(client, make_user, staff):
    user = make_user(username="cheater")
    ban_user(user=user, reason="secret reason", staff_user=staff)
    text = log_in(client, "cheater", "wrong").content.decode()
    assert "not correct" in text and "secret reason" not in text


def test_a_ban_ends_an_open_session(client, make_user, staff):
    user = make_user()
    client.force_login(user)
    assert client.get(reverse("profile")).status_code == 200
    ban_user(user=user, reason="x", staff_user=staff)
    assert client.get(reverse("profile")).status_code == 403  # the ban's page, once
    response = client.get(reverse("profile"))
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)


def test_the_first_request_after_a_ban_ends_the_session_and_says_why(client, make_user, staff):
    """Issue 37: the first request after a ban still rendered the lobby, as if nothing happened."""
    user = make_user()
    client.force_login(user)
    assert client.get("/lobby/").status_code == 200
    ban_user(user=user, reason="chip dumping", staff_user=staff)
    response = client.get("/lobby/")
    text = response.content.decode()
    assert response.status_code == 403 and "This account is banned" in text and "chip dumping" in text
    assert "_auth_user_id" not in client.session  # the session ended: the next page is a visitor's
    assert client.get("/lobby/").status_code == 200


# --- where a form sends the player next ---


def test_an_https_log_in_never_sends_the_player_on_to_plain_http(client, make_user):
    """Issue 37: ``next=`` to the room's own host over http:// took an https page down to http."""
    make_user(username="kim")
    data = {"login": "kim", "password": PASSWORD}
    response = client.post(f"{LOGIN}?next=http://testserver/lobby/", data, secure=True)
    assert response.status_code == 302 and not response["Location"].startswith("http://")
    client.logout()
    response = client.post(f"{LOGIN}?next=https://testserver/lobby/", data, secure=True)
    assert response["Location"] == "https://testserver/lobby/"  # the same scheme is fine
    client.logout()
    response = client.post(f"{LOGIN}?next=http://testserver/lobby/", data)  # a plain http room
    assert response["Location"] == "http://testserver/lobby/"


def test_the_chip_history_says_what_happened_one_row_a_move(client, signed_in, make_user):
    """A buy-in is one row, "bought in at table 3", -500 from the wallet (not also "+500" on the
    seat); a hand says won or lost and by how much; a cash-out what came back."""
    rival = make_user()
    grant_signup_bonus(user=rival)
    for user in (signed_in, rival):
        seat_buy_in(user=user, table_id=3, amount=500, idempotency_key=f"sit-{user.pk}")
    hand_settle(
        table_id=3, deltas={signed_in.pk: 120, rival.pk: -120}, idempotency_key="h1", memo="hand 1 at table 3"
    )
    hand_settle(
        table_id=3, deltas={signed_in.pk: -40, rival.pk: 40}, idempotency_key="h2", memo="hand 2 at table 3"
    )
    seat_cash_out(user=signed_in, table_id=3, idempotency_key="out")
    page = client.get(reverse("profile")).content.decode()
    rows = [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
        for row in re.findall(r"<tr>(.*?)</tr>", page, re.S)[1:]
    ]
    whats = [
        re.search(r'data-label="What">([^<]*)<', row) for row in re.findall(r"<tr>(.*?)</tr>", page, re.S)[1:]
    ]
    assert [m.group(1) for m in whats if m] == [
        "cash-out",
        "hand lost",
        "hand won",
        "buy-in",
        "sign-up bonus",
    ], rows
    assert any("+580" in row and "table 3" in row for row in rows), rows  # the cash-out, to the wallet
    assert any("-40" in row and "hand 2 at table 3" in row for row in rows), rows
    assert any("+120" in row and "hand 1 at table 3" in row for row in rows), rows
    assert any("-500" in row and "buy-in at table 3" in row for row in rows), rows
    assert not any("+500" in row for row in rows), rows  # the seat's side of the buy-in is not a row


# --- responsible play: a break from play, from the profile ---


def test_a_player_takes_a_time_out_from_the_profile_and_the_profile_says_until_when(client, make_user):
    from accounts.models import PlayBreak

    user = make_user()
    client.force_login(user)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="period"' in page and 'value="6weeks"' in page and 'value="5years"' in page

    response = client.post(reverse("take_break"), {"period": "week", "confirm": "on"}, follow=True)

    play_break = PlayBreak.objects.get(user=user)
    assert play_break.kind == PlayBreak.Kind.TIME_OUT
    assert "You are taking a break from play until" in response.content.decode()


def test_a_break_needs_the_confirmation_and_a_length_offered(client, make_user):
    from accounts.models import PlayBreak

    user = make_user()
    client.force_login(user)
    unconfirmed = client.post(reverse("take_break"), {"period": "week"}, follow=True).content.decode()
    assert "Tick the box to confirm" in unconfirmed
    odd = client.post(
        reverse("take_break"), {"period": "3days", "confirm": "on"}, follow=True
    ).content.decode()
    assert "Pick one of the offered lengths" in odd
    assert not PlayBreak.objects.exists()


def test_a_player_sets_a_loss_limit_from_the_profile_and_a_raise_waits_24_hours(client, make_user):
    from accounts.services.responsible import loss_limit_status

    user = make_user()
    client.force_login(user)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="amount"' in page and 'value="week"' in page

    set_now = client.post(reverse("set_loss_limit"), {"period": "day", "amount": "400"}, follow=True)
    assert "Your loss limit for the day is now 400 chips." in set_now.content.decode()
    assert loss_limit_status(user=user).limit == 400

    raised = client.post(reverse("set_loss_limit"), {"period": "day", "amount": "900"}, follow=True)
    assert "takes effect on" in raised.content.decode()
    assert loss_limit_status(user=user).limit == 400
    removed = client.post(
        reverse("set_loss_limit"), {"period": "day", "amount": ""}, follow=True
    ).content.decode()
    assert "takes effect on" in removed and "no limit" in removed


@pytest.mark.parametrize("amount", ["-5", "abc", "0", "1.5"])
def test_a_bad_loss_limit_gets_a_message_and_changes_nothing(client, make_user, amount):
    from accounts.models import LossLimit

    client.force_login(make_user())
    page = client.post(
        reverse("set_loss_limit"), {"period": "day", "amount": amount}, follow=True
    ).content.decode()
    assert "A loss limit is a whole number of chips, at least 1." in page
    assert not LossLimit.objects.exists()


# --- responsible play: the page, its links, and 18+ at sign-up ---


def test_sign_up_needs_the_18_plus_confirmation_and_links_to_responsible_play(client):
    form = client.get("/accounts/signup/").content.decode()
    assert 'name="adult"' in form and reverse("responsible_play") in form
    response = client.post(
        "/accounts/signup/",
        {"username": "young", "email": "young@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert "You must be 18 or older to play here." in response.content.decode()
    assert not LedgerTransaction.objects.exists()
    from accounts.models import User

    assert not User.objects.filter(username="young").exists()


@pytest.mark.parametrize(
    ("language", "heading", "help_words"),
    [("en", "Responsible play", "Gamblers Anonymous"), ("bg", "Отговорна игра", "Анонимни комарджии")],
)
def test_the_responsible_play_page_in_both_languages_linked_from_every_page_and_the_profile(
    client, make_user, language, heading, help_words
):
    client.cookies["django_language"] = language
    page = client.get(reverse("responsible_play")).content.decode()
    assert heading in page and help_words in page
    home = client.get("/").content.decode()
    assert f'href="{reverse("responsible_play")}"' in home  # the footer, on every page
    client.force_login(make_user())
    profile = client.get(reverse("profile")).content.decode()
    assert profile.count(f'href="{reverse("responsible_play")}"') >= 2  # the footer and the profile
