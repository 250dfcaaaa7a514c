"""The tournament tests open tournaments (closed to players until play at their tables is built)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _tournaments_open(settings):
    settings.TOURNAMENTS_OPEN = True
