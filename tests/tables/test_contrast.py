"""Contrast on the table page, computed from the stylesheets themselves (static/css/site.css and
table.css): each colour of text on the felt against the felt's centre (the lightest place of its
gradient, so the worst), the seats' text against a seat, and the focus ring against every background
it can sit on. WCAG 2.2: 4.5:1 for text, 3:1 for large text (the pot's amount) and for the focus ring.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "static" / "css"
Colour = tuple[float, float, float, float]  # r, g, b in 0-255, alpha in 0-1


def rules(*names: str) -> dict[str, dict[str, str]]:
    """Every rule outside @media blocks, by selector (each of a list on its own), later ones
    overriding earlier ones property by property; custom properties resolved at the end."""
    found: dict[str, dict[str, str]] = {}
    for name in names:
        text = re.sub(r"/\*.*?\*/", "", (CSS / name).read_text(), flags=re.S)
        for selectors, body in _top_level_rules(text):
            declarations = dict(
                (key.strip(), value.strip())
                for key, value in (d.split(":", 1) for d in body.split(";") if ":" in d)
            )
            for selector in selectors.split(","):
                found.setdefault(" ".join(selector.split()), {}).update(declarations)
    return found


def _top_level_rules(text: str) -> list[tuple[str, str]]:
    out, depth, start, head = [], 0, 0, ""
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                head, start = text[start:i].strip(), i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                if not head.startswith("@"):
                    out.append((head, text[start:i]))
                start = i + 1
    return out


def resolve(value: str, variables: dict[str, str]) -> str:
    while "var(" in value:
        value = re.sub(r"var\((--[\w-]+)(?:,\s*([^)]*))?\)", lambda m: variables.get(m[1], m[2] or ""), value)
    return value


def colour(text: str) -> Colour:
    text = text.strip()
    if text in ("white", "#fff"):
        return (255, 255, 255, 1)
    if text.startswith("#"):
        h = text[1:]
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 1)
    m = re.fullmatch(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+))?\s*\)", text)
    assert m, f"not a colour this test reads: {text!r}"
    return (float(m[1]), float(m[2]), float(m[3]), float(m[4]) if m[4] else 1)


def over(top: Colour, under: Colour, opacity: float = 1) -> Colour:
    """``top`` painted over an opaque ``under`` (with the layer's opacity)."""
    a = top[3] * opacity
    return (*(t * a + u * (1 - a) for t, u in zip(top[:3], under[:3])), 1)  # type: ignore[return-value]


def luminance(c: Colour) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: Colour, b: Colour) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


@pytest.fixture(scope="module")
def css() -> dict[str, dict[str, str]]:
    return rules("site.css", "table.css")


def value(css: dict[str, dict[str, str]], selector: str, prop: str) -> str:
    variables = css[":root"]
    assert prop in css[selector], f"{selector} sets no {prop}"
    return resolve(css[selector][prop], variables)


def felt_centre(css: dict[str, dict[str, str]]) -> Colour:
    """The first stop of the felt's radial gradient: its centre, where the pot is written."""
    background = value(css, ".seats", "background")
    first = re.search(r"radial-gradient\([^,]*,\s*(#[0-9a-fA-F]{3,6})", background)
    assert first, background
    return colour(first[1])


def test_the_reader_of_the_stylesheets_can_fail() -> None:
    assert ratio(colour("#e0b84c"), colour("#16794f")) == pytest.approx(2.87, abs=0.01)  # the old gold
    assert ratio(colour("#fff"), colour("#000")) == pytest.approx(21)
    assert over(colour("rgba(255,255,255,.35)"), colour("#000"))[0] == pytest.approx(89.25)


# Text written on the felt itself: (selector, what it is, the ratio it needs).
ON_THE_FELT = [
    (".pot-amount strong", "the pot's amount (large, bold)", 3),
    (".pot-amount .label", 'the "Pot" label', 4.5),
    ("#table-pot code", "the seed hash", 4.5),
    ("#table-pot", "the pot's lines", 4.5),
]


@pytest.mark.parametrize(("selector", "what", "needs"), ON_THE_FELT, ids=[w for _s, w, _n in ON_THE_FELT])
def test_text_on_the_felt_reads_against_its_centre(css, selector: str, what: str, needs: float) -> None:
    centre = felt_centre(css)
    fg = colour(value(css, selector, "color"))
    assert ratio(over(fg, centre), centre) >= needs, f"{what}: {ratio(over(fg, centre), centre):.2f}"


def test_the_urgent_countdown_reads_on_its_own_background_or_the_felt(css) -> None:
    centre = felt_centre(css)
    rule = css[".countdown.urgent"]
    bg = over(colour(resolve(rule["background"], css[":root"])), centre) if "background" in rule else centre
    fg = colour(value(css, ".countdown.urgent", "color"))
    assert ratio(fg, bg) >= 4.5


def test_a_free_seats_label_reads_on_the_felt(css) -> None:
    centre = felt_centre(css)
    seat = over(colour(value(css, ".seat.empty", "background")), centre)
    assert ratio(colour(value(css, ".seat.empty", "color")), seat) >= 4.5


@pytest.mark.parametrize("state", ["", ".seat.out"])
def test_muted_text_on_a_seat_reads_in_the_hand_and_out_of_it(css, state: str) -> None:
    """The seat's labels ("chips", "(you)") in the muted colour, on a seat in the hand and on one out
    of it (a seat made paler with opacity took its text down with it)."""
    centre = felt_centre(css)
    seat_rule = css[".seat"] | (css[state] if state else {})
    opacity = float(seat_rule.get("opacity", "1"))
    seat = over(colour(resolve(seat_rule["background"], css[":root"])), centre)
    shown_seat = over(seat, centre, opacity)
    for selector in (".label", ".seat-name .you", ".turn"):
        fg = over(colour(value(css, selector, "color")), seat)
        shown = over(fg, centre, opacity)
        assert ratio(shown, shown_seat) >= 4.5, (
            f"{selector} on {state or '.seat'}: {ratio(shown, shown_seat):.2f}"
        )


@pytest.mark.parametrize("state", [".seat.out .seat-cards", ".seat.folded .seat-cards"])
@pytest.mark.parametrize("suit", [".card.red", ".card.black"])
def test_a_cards_rank_reads_on_the_card_also_when_its_hand_is_folded(css, state: str, suit: str) -> None:
    card = colour(value(css, ".card", "background"))
    opacity = float(css[state].get("opacity", "1"))
    rank = over(colour(value(css, suit, "color")), card, opacity)
    assert ratio(rank, card) >= 4.5, f"{suit} in {state}: {ratio(rank, card):.2f}"


def test_the_focus_ring_stands_out_on_every_background(css) -> None:
    """Two colours, one of them at 3:1 or more against whatever is behind: the paper, a white panel,
    the felt (centre, middle, edge) and the dark header."""
    ring = css[":focus-visible"]
    colours = re.findall(
        r"var\(--[\w-]+\)|#[0-9a-fA-F]{3,6}", ring["outline"] + " " + ring.get("box-shadow", "")
    )
    ring_colours = {colour(resolve(c, css[":root"])) for c in colours}
    assert len(ring_colours) == 2, ring
    root = css[":root"]
    backgrounds = {
        "paper": colour(root["--paper"]),
        "white panel": colour("#fff"),
        "felt centre": felt_centre(css),
        "felt": colour(root["--felt"]),
        "felt edge": colour(root["--felt-dark"]),
    }
    for name, bg in backgrounds.items():
        best = max(ratio(c, bg) for c in ring_colours)
        assert best >= 3, f"focus ring on the {name}: {best:.2f}"
    a, b = ring_colours
    assert ratio(a, b) >= 3  # and the two rings tell apart from each other
