import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from svara_site.asgi import application


def _session_cookie_header(user) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    return (b"cookie", f"sessionid={cookie}".encode())


@pytest.mark.django_db(transaction=True)
async def test_websocket_passes_origin_check_and_sees_the_user():
    from asgiref.sync import sync_to_async

    user = await sync_to_async(get_user_model().objects.create_user)(username="ann", password="pw-12345-x")
    cookie = await sync_to_async(_session_cookie_header)(user)
    comm = WebsocketCommunicator(
        application,
        "/ws/ping/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1"), cookie],
    )
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"hello": 1})
    assert await comm.receive_json_from() == {"pong": True, "user": "ann"}
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_websocket_from_a_foreign_origin_is_refused():
    comm = WebsocketCommunicator(application, "/ws/ping/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await comm.connect()
    assert not connected
