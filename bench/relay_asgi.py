"""ASGI app for the relay as our consumers use the stack (bench/relay.py): the site's settings,
one WebSocket route, no auth.

daphne bench.relay_asgi:application
"""

import os

from svara_site.serving import tune_garbage_collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.settings")

from bench.relay_routes import relay_application

application = relay_application("RelayConsumer")

# Tuned like the site's server (svara_site/asgi.py), so the ratios compare like with like.
tune_garbage_collector()
