from django.urls import path

from games.lobby.consumers import LobbyConsumer
from games.tables import consumers

websocket_urlpatterns = [
    path("ws/ping/", consumers.PingConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
