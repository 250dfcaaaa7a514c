"""ASGI entry point: HTTP through Django, WebSockets through Channels.

WebSockets pass the allowed-origin check (the page must come from one of ALLOWED_HOSTS) and
the session auth middleware, so consumers see ``scope["user"]``.
"""

import os

from django.core.asgi import get_asgi_application

from svara_site.serving import tune_garbage_collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")
django_asgi_app = get_asgi_application()

# Imported after Django is set up: consumers import models.
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Daphne serves the static files itself on the one-machine setup; a bigger
        # deployment puts a web server in front and this handler never sees /static/.
        "http": ASGIStaticFilesHandler(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# After everything the process keeps is loaded (svara_site/serving.py says why).
tune_garbage_collector()
