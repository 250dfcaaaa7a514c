"""ASGI app for the bare relay (bench/relay.py): the site's settings, one WebSocket route, no auth.

daphne bench.relay_asgi:application
"""

import os

from django.core.asgi import get_asgi_application

from svara_site.serving import tune_garbage_collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from bench.relay import RelayConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter([path("ws/relay/<int:table_id>/<int:seat>/", RelayConsumer.as_asgi())]),
    }
)

# Tuned like the site's server (svara_site/asgi.py), so the ratios compare like with like.
tune_garbage_collector()
