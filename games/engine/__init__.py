"""The Svara rules engine: pure Python, imports nothing from Django."""

from games.engine.cards import Card, CardError, card_text, parse_card, parse_cards
from games.engine.scoring import score, score_cards

__all__ = ["Card", "CardError", "card_text", "parse_card", "parse_cards", "score", "score_cards"]
