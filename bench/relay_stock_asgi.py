"""ASGI app for the relay on the stack as it comes (bench/relay.py): run with
``DJANGO_SETTINGS_MODULE=bench.settings_stock_relay`` (channels-redis's default layer), Channels'
own dispatch, and CPython's default collector.

daphne bench.relay_stock_asgi:application
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings_stock_relay")

from bench.relay_routes import relay_application

application = relay_application("StockRelayConsumer")
