import pytest

from games.engine.cards import DECK, CardError, card_symbol_text, card_text, parse_card, parse_cards


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("10♥", "10H"),
        ("7♣", "7C"),
        ("T♠", "10S"),
        ("AD", "AD"),
        (" 9♦ ", "9D"),
    ],
)
def test_parses_every_accepted_notation_and_prints_the_canonical_one(text, expected):
    assert card_text(parse_card(text)) == expected


# RULES.md §1 writes cards in capitals: lower case is not a card (a page may upper-case what people type).
@pytest.mark.parametrize(
    "bad",
    ["", "1H", "6C", "11S", "10X", "H10", "AA", "ZZ", "10", 10, None, "7CC", "qs", "7c", "tH", "Ts", "10♥♥"],
)
def test_rejects_anything_else_with_a_clear_message(bad):
    with pytest.raises(CardError, match="not a card"):
        parse_card(bad)


def test_deck_is_32_distinct_cards_that_round_trip():
    assert len(DECK) == 32
    assert {card_text(c) for c in DECK} == {
        r + s for r in ("7", "8", "9", "10", "J", "Q", "K", "A") for s in "CDHS"
    }
    for card in DECK:
        assert parse_card(card_text(card)) == card
        assert parse_card(card_symbol_text(card)) == card


def test_duplicate_cards_are_refused():
    with pytest.raises(CardError, match="duplicate card: 7C"):
        parse_cards(["7C", "8D", "7♣"])
