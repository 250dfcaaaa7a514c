"""WebSocket consumers: thin. Authenticate, parse, call a service, render."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    """A connectivity check for the page: answers every message with the viewer's name.

    It proves the socket went through the origin check and the session middleware.
    """

    async def connect(self) -> None:
        await self.accept()

    async def receive_json(self, content: object, **kwargs: object) -> None:
        user = self.scope.get("user")
        name = user.get_username() if user is not None and user.is_authenticated else None
        await self.send_json({"pong": True, "user": name})
