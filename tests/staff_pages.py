"""Driving the staff pages as a staff member does: the form, the confirmation page, the confirm."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.test import Client


def open_own_page(client: Client, url: str) -> tuple[str, str]:
    """Open an action's own page: it redirects to its address with a token. Returns both."""
    response = client.get(url)
    assert response.status_code == 302, response
    location = response["Location"]
    token = parse_qs(urlsplit(location).query)["token"][0]
    assert client.get(location).status_code == 200
    return location, token


def own_page_data(token: str, **fields) -> dict:
    return {"token": token, **{key: str(value) for key, value in fields.items()}}


def list_action(client: Client, url: str, action: str, pks: list[int]) -> dict:
    """Choose an action on a list: its form page. Returns the data to post back with the fields."""
    response = client.post(url, {"action": action, "_selected_action": pks})
    assert response.status_code == 200, response
    token = response.context["form"]["token"].value()
    return {"action": action, "_selected_action": pks, "apply": "1", "token": token}


def preview(client: Client, url: str, data: dict):
    return client.post(url, {**data, "preview": "1"})


def confirm(client: Client, url: str, data: dict, **kwargs):
    return client.post(url, {**data, "confirm": "1"}, **kwargs)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []
