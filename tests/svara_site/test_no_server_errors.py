"""Bad input in an address is the visitor's mistake, never the server's: no page answers 500.

The named cases, then hypothesis fuzzing the query strings (and path parameters) of the public
pages and of the pages behind a log-in, with any bytes percent-encoded, through Django's test
client: an exception escaping a view fails the test (the client re-raises it).
"""

# Bulgarian page text is checked on purpose: Cyrillic letters that look Latin are expected here.
# ruff: noqa: RUF001

from __future__ import annotations

from urllib.parse import quote_from_bytes

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db

ROOM_PAGE = 'class="site-header"'  # the room's own layout, not Django's bare error text


def logged_in_client() -> Client:
    model = get_user_model()
    user = model.objects.filter(username="fuzzer").first() or model.objects.create_user(
        username="fuzzer", password="pw-fuzzer-1234"
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("path", "login"),
    [
        ("/lobby/?stake=²", False),
        ("/lobby/tables/?stake=²", False),
        ("/lobby/?stake=" + "9" * 4301, False),
        ("/lobby/tables/?stake=" + "1" * 5000, False),
        ("/lobby/?stake=%00", False),
        ("/t/%00/", True),  # logged out, the invite link asks to log in first
        ("/t/%F0%9F%83%8F%00x/", True),
    ],
)
def test_the_reported_addresses_get_the_rooms_400_or_404(path, login):
    client = logged_in_client() if login else Client()
    response = client.get(path)
    assert response.status_code in (400, 404), response.status_code
    assert ROOM_PAGE in response.content.decode()


def test_a_bad_stake_says_so_and_a_number_that_is_no_stake_shows_every_table(client):
    page = client.get("/lobby/?stake=²").content.decode()
    assert "not a stake" in page
    assert client.get("/lobby/?stake=7").status_code == 200  # a plain number: every table, as before
    bg = client.get("/lobby/?stake=²", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "не е миза" in bg


PUBLIC = ["/", "/lobby/", "/lobby/tables/", "/rules/", "/rules/faq/", "/rules/calculator/", "/fair/"]
PUBLIC += ["/responsible-play/"]
PUBLIC += ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
LOGGED_IN = ["/hands/", "/accounts/profile/", "/practice/", "/tables/new/", "/hands/1/", "/table/1/"]
KEYS = [
    "stake", "page", "step", "cards", "card", "server_seed", "client_seeds", "nonce", "deal",
    "expected_hash", "hand", "next", "result", "kind", "since", "until", "level", "lang", "table", "series",
]  # fmt: skip
values = st.one_of(
    st.binary(max_size=12),
    st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\x00", "²".encode(), b"9" * 4301, b"-1", b"1e9", b"\xff", "٣".encode(), b"10"]),
)
queries = st.lists(st.tuples(st.sampled_from(KEYS) | st.binary(max_size=4), values), max_size=4).map(
    lambda pairs: "&".join(
        f"{quote_from_bytes(k.encode() if isinstance(k, str) else k)}={quote_from_bytes(v)}" for k, v in pairs
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PUBLIC), query=queries)
def test_public_pages_never_answer_500(path, query):
    response = Client().get(f"{path}?{query}")
    assert response.status_code < 500


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(LOGGED_IN), query=queries)
def test_logged_in_pages_never_answer_500(path, query):
    response = logged_in_client().get(f"{path}?{query}")
    assert response.status_code < 500


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segment=st.binary(min_size=1, max_size=20), login=st.booleans())
def test_path_parameters_never_answer_500(segment, login):
    client = logged_in_client() if login else Client()
    piece = quote_from_bytes(segment, safe="")
    paths = (f"/t/{piece}/", f"/table/{piece}/", f"/hands/{piece}/", f"/hands/{piece}/hand.json")
    for path in (*paths, f"/fair/series/{piece}-1.json", f"/fair/series/1-{piece}.json"):
        assert client.get(path).status_code < 500, path
