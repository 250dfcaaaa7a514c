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
