"""The room's own pages for a wrong address, a server error and an expired form, in both languages:
the site's look and a way back instead of Django's plain ones.

Bulgarian text is checked on purpose: Cyrillic letters that look Latin are expected here.
"""

# ruff: noqa: RUF001

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path

pytestmark = pytest.mark.django_db


def _boom(request):
    raise RuntimeError("a bug in a view")


# The site's URLs and one view that fails, for the server error (pytest.mark.urls below).
urlpatterns = [path("boom/", _boom), path("", include("svara_site.urls"))]


def test_a_wrong_address_gets_the_rooms_404_with_its_header_and_a_way_back(client):
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in page
    assert 'class="site-header"' in page and 'href="/lobby/"' in page
    assert "Page not found · Svara room</title>" in page


def test_the_404_in_bulgarian():
    page = Client(HTTP_ACCEPT_LANGUAGE="bg").get("/no-such-page/").content.decode()
    assert "<h1>Няма такава страница</h1>" in page and "Към лобито" in page


@pytest.mark.urls("tests.svara_site.test_error_pages")
def test_a_server_error_gets_the_rooms_500_without_the_request_context():
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    page = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Something went wrong</h1>" in page
    assert "Your chips are safe" in page and 'href="/"' in page
    assert "/static/css/site.css" in page
    bg = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="bg").get("/boom/").content.decode()
    assert "<h1>Нещо се обърка</h1>" in bg


def test_an_expired_form_is_refused_with_a_page_that_says_so_and_nothing_changes():
    get_user_model().objects.create_user(username="vela", password="Vela-right-Pass-5")
    client = Client(enforce_csrf_checks=True)  # a post without the token, as from a stale page
    response = client.post("/accounts/login/", {"login": "vela", "password": "Vela-right-Pass-5"})
    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>This form has expired</h1>" in page and "nothing was changed" in page
    assert "_auth_user_id" not in client.session  # the right password, and still not logged in
