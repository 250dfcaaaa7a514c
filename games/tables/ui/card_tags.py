"""``{% load cards %}{% card face %}``: the one card template (cards.py) on Django's pages; ``{% card %}``
alone draws a card's back. Registered as the library "cards" in settings.TEMPLATES."""

from __future__ import annotations

from django import template
from markupsafe import Markup

from games.tables.ui.cards import CardFace, card_html

register = template.Library()


@register.simple_tag
def card(face: CardFace | None = None) -> Markup:
    return card_html(None if face is None else face.card)
