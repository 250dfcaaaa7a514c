"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Around both: the player's real address from the trusted proxies' ``X-Forwarded-For`` and one log
line per request (svara_site/proxy.py). WebSockets pass the whole-origin check
(svara_site/origins.py) and the session auth middleware, so consumers see ``scope["user"]``.
Static files are WhiteNoise's, inside Django (svara_site/staticfiles.py).
"""

import os

import django
from django.core.asgi import get_asgi_application

from svara_site.serving import tune_garbage_collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")
django.setup(set_prefix=False)

from svara_site.staticfiles import check_collected  # noqa: E402

check_collected()  # before the static files' middleware looks for them
django_asgi_app = get_asgi_application()

# Imported after Django is set up: consumers import models.
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from svara_site.origins import SameOriginValidator  # noqa: E402
from svara_site.proxy import AccessLog, RealClient, proxy_networks  # noqa: E402
from svara_site.routing import websocket_urlpatterns  # noqa: E402

application = RealClient(
    AccessLog(
        ProtocolTypeRouter(
            {
                "http": django_asgi_app,
                "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
            }
        )
    ),
    trusted=settings.TRUSTED_PROXIES,
    networks=proxy_networks(settings.TRUSTED_PROXY_NETWORKS),
)

# After everything the process keeps is loaded (svara_site/serving.py says why).
tune_garbage_collector()
