"""Telling the tournament lobby's sockets that its list changed (a hint: each page then fetches its
own list, which shows the viewer's registrations)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)

TOURNAMENTS_GROUP = "tournaments"


def tournaments_changed() -> None:
    """After the current transaction commits: a refused or rolled-back change tells nobody."""
    transaction.on_commit(_send)


def _send() -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(TOURNAMENTS_GROUP, {"type": "tournaments.changed"})
    except Exception:  # a hint lost is a list refreshed 30 s later (the page polls): never a failed request
        log.warning("tournament lobby hint not sent", exc_info=True)
