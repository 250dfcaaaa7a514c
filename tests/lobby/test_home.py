import pytest


@pytest.mark.django_db
def test_home_page_says_what_the_site_is(client):
    response = client.get("/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Svara" in text
    assert "three-card game" in text
    # htmx is served from the django-htmx package, not a copied file.
    assert "/static/django_htmx/htmx-2.min.js" in text


@pytest.mark.django_db
def test_static_files_are_found_for_the_asgi_handler():
    from django.contrib.staticfiles import finders

    assert finders.find("css/site.css")
    assert finders.find("django_htmx/htmx-2.min.js")


@pytest.mark.django_db
def test_every_page_names_the_rooms_tab_icon(client):
    from xml.etree import ElementTree

    from django.contrib.staticfiles import finders

    for path in ("/", "/rules/", "/no-such-page/"):
        assert (
            '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
            in client.get(path).content.decode()
        )
    icon = ElementTree.parse(finders.find("favicon.svg")).getroot()  # a well-formed SVG
    assert icon.tag == "{http://www.w3.org/2000/svg}svg" and icon.get("viewBox") == "0 0 32 32"


def test_the_old_icon_address_leads_to_the_rooms_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"
