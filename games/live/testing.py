"""Test-only hooks. Everything here refuses to run unless settings.SVARA_TEST_HOOKS is true,
which only svara_site/test_settings.py sets: production settings do not have the hook at all."""

from __future__ import annotations

from django.conf import settings

from games.engine.cards import parse_cards
from games.live import service
from games.live.store import Versioned


def hooks_enabled() -> bool:
    return bool(getattr(settings, "SVARA_TEST_HOOKS", False))


async def stack_decks(*, table_id: int, decks: list[list[str]]) -> Versioned:
    """The next hand at this table is dealt from these decks (card text, top card first)."""
    if not hooks_enabled():
        raise PermissionError("test hooks are off")
    parsed = [parse_cards(deck) for deck in decks]
    await service.load_table_state(table_id)

    def change(current: Versioned):
        return {**current.doc, "stacked_decks": parsed}

    return await service.update_table(table_id, change)
