"""Log-in limits per account and look-alike usernames, through allauth's real sign-up, log-in and
password-reset views with Django's test client, on the cache backend the settings name (Redis
when REDIS_URL is set), each test under its own key prefix."""

# Look-alike letters are the point of these tests.
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import re
import uuid

import pytest
from django.conf import settings as django_settings
from django.core import mail
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import LedgerTransaction, User
from accounts.usernames import username_skeleton
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"
BLOCKED = "Too many failed login attempts"


@pytest.fixture(autouse=True)
def _own_cache(settings):
    """Overrides the accounts conftest's local cache: the settings' own backend, a fresh prefix."""
    settings.CACHES = {
        name: {**config, "KEY_PREFIX": f"test-login-{uuid.uuid4().hex}"}
        for name, config in django_settings.CACHES.items()
    }


def log_in(client, login: str, password: str):
    return client.post(LOGIN, {"login": login, "password": password})


def signed_in(client) -> bool:
    return client.get("/accounts/profile/").wsgi_request.user.is_authenticated


def sign_up(client, username: str, email: str | None = None):
    email = email or f"{uuid.uuid4().hex[:10]}@example.com"
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD, "adult": "on"},
    )


def test_the_settings_cache_is_the_one_in_use():
    from django.core.cache import caches

    from svara_site import test_settings

    backend = type(caches["default"])
    assert f"{backend.__module__}.{backend.__name__}" == test_settings.CACHES["default"]["BACKEND"]


def test_the_username_and_the_email_count_as_one_account(client):
    sign_up(client, "target", "target@example.com")
    client.post("/accounts/logout/")
    for login in ("target", "target@example.com", "TARGET", "Target@Example.com", "target"):
        assert "not correct" in log_in(client, login, "guess").content.decode()
    # Five guesses in all: the sixth try is refused, even with the right password, by either name.
    assert BLOCKED in log_in(client, "target", PASSWORD).content.decode()
    assert BLOCKED in log_in(client, "target@example.com", PASSWORD).content.decode()
    assert not signed_in(client)


def test_guesses_at_unknown_names_are_counted_by_the_name(client):
    sign_up(client, "real-one")
    client.post("/accounts/logout/")
    for _ in range(5):
        log_in(client, "nobody-here", "guess")
    assert BLOCKED in log_in(client, "nobody-here", "guess").content.decode()
    assert log_in(client, "real-one", PASSWORD).status_code == 302


def test_a_password_reset_unlocks_the_account(client):
    sign_up(client, "ivan", "ivan@example.com")
    client.post("/accounts/logout/")
    for _ in range(5):
        log_in(client, "ivan", "guess")
    assert BLOCKED in log_in(client, "ivan", PASSWORD).content.decode()

    assert client.post("/accounts/password/reset/", {"email": "ivan@example.com"}).status_code == 302
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mail.outbox[-1].body).group(1)
    form_url = client.get(link, follow=True).redirect_chain[-1][0]
    new = "reset to something long"
    assert client.post(form_url, {"password1": new, "password2": new}).status_code == 302
    # Locked by username guesses, unlocked by the reset through the e-mail: either name logs in.
    assert log_in(client, "ivan", new).status_code == 302
    client.post("/accounts/logout/")
    assert log_in(client, "ivan@example.com", new).status_code == 302


def test_a_reset_unlocks_an_account_without_allauth_email_rows(client, make_user):
    # Made in the admin or by createsuperuser: no allauth EmailAddress row, only User.email.
    make_user(username="maria", email="maria@example.com")
    for _ in range(5):
        log_in(client, "maria", "guess")
    assert BLOCKED in log_in(client, "maria", PASSWORD).content.decode()
    client.post("/accounts/password/reset/", {"email": "maria@example.com"})
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mail.outbox[-1].body).group(1)
    form_url = client.get(link, follow=True).redirect_chain[-1][0]
    new = "reset to something long"
    client.post(form_url, {"password1": new, "password2": new})
    assert log_in(client, "maria", new).status_code == 302


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("bot01", "bоt01"),  # Cyrillic о
        ("victim", "vіctim"),  # Cyrillic і
        ("victim", "VICTlM"),
        ("petar", "реtаr"),  # Cyrillic р е а
        ("mike", "rnike"),
        ("Ivan", "lvan"),
        ("anna", "ＡＮＮＡ"),  # full-width
    ],
)
def test_sign_up_refuses_a_look_alike_of_a_taken_name(client, taken, look_alike):
    sign_up(client, taken)
    client.post("/accounts/logout/")
    before = User.objects.count()
    page = sign_up(client, look_alike)
    assert page.status_code == 200
    assert "looks like the name of another player" in page.content.decode()
    assert (
        User.objects.count() == before and LedgerTransaction.objects.filter(kind="signup_bonus").count() == 1
    )
    bg = sign_up(client.__class__(HTTP_ACCEPT_LANGUAGE="bg"), look_alike).content.decode()
    assert "прилича на името на друг играч" in bg


@pytest.mark.parametrize("look_alike", ["аdmin", "ADMlN", "ѕtaff", "Cоmputer_Hard", "ѕуѕtеm"])
def test_sign_up_refuses_a_look_alike_of_a_reserved_name(client, look_alike):
    page = sign_up(client, look_alike).content.decode()
    assert "is reserved for the room" in page
    assert not User.objects.filter(username=look_alike).exists()


def test_names_that_only_resemble_are_accepted(client):
    sign_up(client, "bot01")
    client.post("/accounts/logout/")
    for name in ("bot02", "botanist", "иван", "ivana", "petar_bg"):
        assert sign_up(client.__class__(), name).status_code == 302, name
    assert User.objects.filter(username__in=["bot02", "botanist", "иван", "ivana", "petar_bg"]).count() == 5


def test_the_skeleton_is_kept_in_step_with_the_username(make_user):
    user = make_user(username="bot01")
    assert User.objects.get(pk=user.pk).username_skeleton == username_skeleton("bot01")
    user.username = "vіctim"
    user.save(update_fields=["username"])
    assert User.objects.get(pk=user.pk).username_skeleton == username_skeleton("victim")


# Cyrillic letters that are drawn like Latin ones (the look-alike name attack), as a reader sees them.
CYRILLIC_LOOK_ALIKES = {
    "a": "а",
    "c": "с",
    "e": "е",
    "o": "о",
    "p": "р",
    "x": "х",
    "y": "у",
    "i": "і",
    "s": "ѕ",
}


@given(
    name=st.text(alphabet="acdeiopsxy0123456789", min_size=1, max_size=20),
    swap=st.lists(st.booleans(), min_size=20, max_size=20),
)
def test_swapping_latin_letters_for_cyrillic_look_alikes_keeps_the_skeleton(name, swap):
    disguised = "".join(
        CYRILLIC_LOOK_ALIKES[c] if s and c in CYRILLIC_LOOK_ALIKES else c for c, s in zip(name, swap)
    )
    assert username_skeleton(disguised) == username_skeleton(name)
    assert username_skeleton(name.upper()) == username_skeleton(name)


@given(
    a=st.text(alphabet="abdefghknrtuwxyz", min_size=1, max_size=12),
    b=st.text(alphabet="abdefghknrtuwxyz", min_size=1, max_size=12),
)
def test_different_plain_names_have_different_skeletons(a, b):
    # Letters with no look-alike among themselves (no i/l, o/0, m/rn): the skeleton tells them apart.
    assert (username_skeleton(a) == username_skeleton(b)) == (a == b)
