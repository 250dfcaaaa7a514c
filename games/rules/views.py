"""The rules, FAQ, hand calculator and fair-deck pages.

Thin views: the numbers come from ``games.rules.content`` (which gets them from the engine), the
forms only read and check input, and the templates under templates/rules/ lay it out. Every page
works without JavaScript; the calculator also answers htmx requests with just its result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext, gettext_lazy

from games.engine.cards import DECK, SUITS, WILD, Card, CardError, card_text, parse_card, suit_of
from games.engine.fairness import (
    MAX_CLIENT_SEED_CHARS,
    MAX_DEAL,
    MAX_NONCE,
    seed_hash,
    shuffled_deck,
    verify_hand,
)
from games.engine.rules import RULES_V1
from games.engine.scoring import WILD_VALUE
from games.engine.verify import check_hand
from games.history import service as history
from games.live import records
from games.models import PlayedHand, Table
from games.rules import content as rc
from games.rules import series_check as sc
from games.tables.ui.cards import CardFace, card_face, faces

# The stake the betting walk-through uses; a table's real stake is one of games.models.STAKES.
EXAMPLE_STAKE = 10
# The rules the room's tables play (games.engine.rules): the pages state their numbers.
RULES = RULES_V1

# ---------------------------------------------------------------- rules and FAQ


def rules_page(request: HttpRequest) -> HttpResponse:
    rows = rc.distribution_rows()
    return render(
        request,
        "rules/rules.html",
        {
            "card_values": rc.card_values(),
            "wild": card_face(WILD),
            "wild_value": WILD_VALUE,
            "deck_size": len(DECK),
            "hand_count": rc.TOTAL_HANDS,
            "groups": rc.group_examples(),
            "mixed_pair": rc.example("KH KD QS"),
            "two_aces": rc.example("AS AD 10C"),
            "two_sevens": rc.example("7H 7S KD"),
            "examples": rc.worked_examples(),
            "distribution": rows,
            "lowest": rows[0],
            "highest": rows[-1],
            "betting": rc.betting_example(stake=EXAMPLE_STAKE, dark_count=3, pot=135, rules=RULES),
            "dark_cap": RULES.dark_cap,
        },
    )


def faq_page(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/faq.html",
        {
            "wild_pair": rc.example("7C 8C 8D"),
            "wild_value": WILD_VALUE,
            "three_eights": rc.example("8S 8D 8H"),
            "mixed_pair": rc.example("KH KD QS"),
            "two_aces": rc.example("AS AD 10C"),
            "two_sevens": rc.example("7H 7S KD"),
            "wild_aces": rc.example("7C AH AD"),
            "traditional_worst": rc.example("7H 9D 9C"),
            "true_worst": rc.example("7H 8D 8S"),
            "betting": rc.betting_example(stake=EXAMPLE_STAKE, dark_count=2, pot=135, rules=RULES),
        },
    )


# ---------------------------------------------------------------- calculator


@dataclass
class Calculation:
    text: str
    picked: list[str]
    error: str = ""
    hand: rc.Explained | None = None
    against_one: rc.Odds | None = None
    against_two: rc.Odds | None = None
    link: str = ""
    submitted: bool = False
    grid: list[list[dict[str, Any]]] = field(default_factory=list)


def _grid(*, chosen: set[Card]) -> list[list[dict[str, Any]]]:
    """The 32 cards as four rows (one per suit) for the pick-a-card form."""
    return [
        [{"face": card_face(card), "checked": card in chosen} for card in DECK if suit_of(card) == suit]
        for suit in range(len(SUITS))
    ]


def calculate(*, text: str, picked: list[str]) -> Calculation:
    calc = Calculation(text=text, picked=picked, submitted=bool(text.strip() or picked))
    cards: tuple[Card, ...] = ()
    if calc.submitted:
        try:
            cards = rc.parse_hand(text=text, picked=picked)
        except rc.HandInputError as exc:
            calc.error = str(exc)
    if cards:
        calc.hand = rc.explain(cards)
        calc.against_one = rc.odds_against_one(cards)
        calc.against_two = rc.odds_against_two(cards)
        calc.link = "?cards=" + "+".join(card_text(c) for c in cards)
    chosen = set(cards) if cards else {c for c in _cards_quietly(picked)}
    calc.grid = _grid(chosen=chosen)
    return calc


def _cards_quietly(texts: list[str]) -> list[Card]:
    # Re-tick what was picked even when the pick as a whole was refused (four cards, say).
    cards = []
    for text in texts:
        try:
            cards.append(parse_card(text))
        except CardError:
            continue
    return cards


def calculator_page(request: HttpRequest) -> HttpResponse:
    calc = calculate(text=request.GET.get("cards", "")[:200], picked=request.GET.getlist("card")[:32])
    template = "rules/_calculator_result.html" if request.htmx else "rules/calculator.html"
    response = render(request, template, {"calc": calc})
    # The same URL answers with a fragment or a page: caches must keep the two apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


# ---------------------------------------------------------------- fair deck

EXACT_SEED_PARAM = "client_seed"


class DeckForm(forms.Form):
    """Typed seeds come one per line (``client_seeds``); a link from a stored hand gives each seed
    as its own ``client_seed`` parameter instead, which carries any list exactly (empty seeds, a
    seed holding a newline), and the box then shows them one per line."""

    server_seed = forms.CharField(
        label=gettext_lazy("Server seed (64 hexadecimal digits)"),
        max_length=200,
        widget=forms.TextInput(attrs={"size": 70, "spellcheck": "false", "autocomplete": "off"}),
    )
    client_seeds = forms.CharField(
        label=gettext_lazy("Client seeds, one per line, in seat order"),
        required=False,
        strip=False,  # a seed is its exact bytes: spaces count
        widget=forms.Textarea(attrs={"rows": 4, "cols": 40, "spellcheck": "false"}),
    )
    nonce = forms.IntegerField(
        label=gettext_lazy("Nonce (the hand number)"), min_value=0, max_value=MAX_NONCE
    )
    deal = forms.IntegerField(
        label=gettext_lazy("Deal (0 for the hand, 1 for its first svara replay, …)"),
        min_value=0,
        max_value=MAX_DEAL,
        required=False,
        initial=0,
    )
    expected_hash = forms.CharField(
        label=gettext_lazy("Hash shown during play (optional)"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 70, "spellcheck": "false", "autocomplete": "off"}),
    )

    def clean_server_seed(self) -> str:
        seed = self.cleaned_data["server_seed"]
        if not rc.is_hex64(seed):
            raise forms.ValidationError(
                gettext(
                    "A server seed is exactly 64 hexadecimal digits (0-9, a-f); this one has "
                    "%(count)d characters."
                )
                % {"count": len(seed)}
            )
        return seed

    def __init__(self, data=None, **kwargs) -> None:
        self.exact_seeds: list[str] | None = None
        if data is not None and EXACT_SEED_PARAM in data:
            self.exact_seeds = data.getlist(EXACT_SEED_PARAM)
            data = data.copy()
            data["client_seeds"] = rc.client_seed_text(self.exact_seeds)
        super().__init__(data, **kwargs)

    def clean_client_seeds(self) -> list[str]:
        if self.exact_seeds is not None:
            seeds = self.exact_seeds
        else:
            seeds = rc.client_seed_lines(self.cleaned_data.get("client_seeds") or "")
        for number, seed in enumerate(seeds, start=1):
            if len(seed) > MAX_CLIENT_SEED_CHARS:
                raise forms.ValidationError(
                    gettext(
                        "Client seed %(number)d is %(length)d characters long; at most %(most)d are allowed."
                    )
                    % {"number": number, "length": len(seed), "most": MAX_CLIENT_SEED_CHARS}
                )
        return seeds

    def clean_expected_hash(self) -> str:
        value = self.cleaned_data.get("expected_hash", "").strip()
        if value and not rc.is_hex64(value):
            raise forms.ValidationError(
                gettext("A SHA-256 hash is 64 hexadecimal digits; this one has %(count)d characters.")
                % {"count": len(value)}
            )
        return value.lower()


class HandLookupForm(forms.Form):
    hand = forms.CharField(
        label=gettext_lazy("Hand: its number on the site, or table-hand such as 7-12"),
        max_length=40,
    )


_HAND_REF = re.compile(r"#?(\d{1,12})(?:-(\d{1,12}))?")


def find_played_hand(ref: str) -> PlayedHand | None:
    """ "12" is a stored hand's id; "7-12" is hand 12 of table 7 (the hand_id of its record)."""
    match = _HAND_REF.fullmatch(ref.strip())
    if not match:
        return None
    first, second = match.groups()
    if second is None:
        return PlayedHand.objects.select_related("table").filter(pk=int(first)).first()
    return PlayedHand.objects.select_related("table").filter(table_id=int(first), number=int(second)).first()


@dataclass
class HandCheck:
    hand: PlayedHand
    # "in_play", "sealed" (its seed series still runs), "no_record" (cancelled before its deal),
    # "no_deal" (settled before its deal: everyone else left), "checked"
    state: str
    problems: list[str] = field(default_factory=list)
    comparisons: list[rc.DeckComparison] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)
    recompute_link: str = ""
    chain: sc.ChainPlace | None = None


def check_played_hand(hand: PlayedHand) -> HandCheck:
    if hand.status == PlayedHand.Status.IN_PLAY:
        # Never show the seed of a hand in play: it would give away every card still to come.
        return HandCheck(hand=hand, state="in_play")
    if not history.is_revealed(hand):
        # Its series still deals: the seed would give away its folded cards and every later hand's.
        return HandCheck(hand=hand, state="sealed")
    record = hand.record if isinstance(hand.record, dict) else {}
    if hand.status == PlayedHand.Status.FINISHED and record.get("decks") == []:
        return _check_undealt(hand, record)
    if not record.get("decks"):
        # A hand cancelled before its deal was stored: only the commitment can be checked.
        check = HandCheck(hand=hand, state="no_record")
        seed_ok = rc.is_hex64(hand.server_seed) and seed_hash(hand.server_seed) == hand.server_seed_hash
        if not seed_ok:
            check.problems.append(
                gettext("The revealed server seed does not match the hash shown during play.")
            )
        return check
    seed = record.get("server_seed", "")
    nonce = record.get("nonce")
    client_seeds = record.get("client_seeds", [])
    check = HandCheck(hand=hand, state="checked", record=record)
    check.problems = verify_hand(
        server_seed=seed,
        server_seed_hash=hand.server_seed_hash,
        client_seeds=client_seeds,
        nonce=nonce,  # type: ignore[arg-type]  # verify_hand reports a bad nonce itself
        decks=record["decks"],
    )
    if record.get("server_seed_hash") not in (None, hand.server_seed_hash):
        check.problems.append(
            gettext("The hand file's hash differs from the hash stored when the hand began.")
        )
    check.comparisons = _comparisons(record=record, seed=seed, client_seeds=client_seeds, nonce=nonce)
    if not check.problems:
        check.recompute_link = _deck_link(
            seed=seed, client_seeds=client_seeds, nonce=nonce, hash_=hand.server_seed_hash
        )
    return check


def _check_undealt(hand: PlayedHand, record: dict[str, Any]) -> HandCheck:
    """A hand settled before its deal (everyone else left, RULES.md §5) dealt no deck: what it
    proves is its seed against the hash shown, its moves played back to its stored result (which
    also says it really ended before the deal), and its place in the table's chain."""
    check = HandCheck(hand=hand, state="no_deal", record=record, chain=sc.chain_place(hand))
    check.problems = check_hand(record, server_seed=hand.server_seed, server_seed_hash=hand.server_seed_hash)
    check.problems += check.chain.problems
    return check


def _comparisons(
    *, record: dict[str, Any], seed: object, client_seeds: object, nonce: object
) -> list[rc.DeckComparison]:
    out: list[rc.DeckComparison] = []
    for index, stored in enumerate(record.get("decks") or []):
        try:
            cards = [c if isinstance(c, int) and not isinstance(c, bool) else parse_card(c) for c in stored]
            computed = shuffled_deck(server_seed=seed, client_seeds=client_seeds, nonce=nonce, deal=index)  # type: ignore[arg-type]
        except (CardError, ValueError, TypeError):
            continue  # verify_hand has already said what is wrong with it
        out.append(rc.compare_decks(stored=cards, computed=computed, deal=index))
    return out


def _deck_link(*, seed: str, client_seeds: list[str], nonce: int, hash_: str) -> str:
    # Each seed its own parameter: joined with newlines, ["", ""] came back as [""] (another deck).
    pairs = [("server_seed", seed), *((EXACT_SEED_PARAM, s) for s in client_seeds)]
    pairs += [("nonce", nonce), ("deal", 0), ("expected_hash", hash_)]
    return "?" + urlencode(pairs)


@dataclass
class DeckResult:
    deck: list[CardFace]
    computed_hash: str
    expected_hash: str
    deal: int

    @property
    def hash_matches(self) -> bool | None:
        return None if not self.expected_hash else self.computed_hash == self.expected_hash


def fair_page(request: HttpRequest) -> HttpResponse:
    deck_form = DeckForm(request.GET if "server_seed" in request.GET else None)
    hand_form = HandLookupForm(request.GET if "hand" in request.GET else None)
    result: DeckResult | None = None
    deck_error = ""
    if deck_form.is_bound and deck_form.is_valid():
        data = deck_form.cleaned_data
        deal = data.get("deal") or 0
        try:
            deck = shuffled_deck(
                server_seed=data["server_seed"],
                client_seeds=data["client_seeds"],
                nonce=data["nonce"],
                deal=deal,
            )
        except ValueError as exc:  # the form checks everything the engine does; this is a safety net
            deck_error = str(exc)
        else:
            result = DeckResult(
                deck=faces(deck),
                computed_hash=seed_hash(data["server_seed"]),
                expected_hash=data["expected_hash"],
                deal=deal,
            )
    check: HandCheck | None = None
    hand_missing = False
    if hand_form.is_bound and hand_form.is_valid():
        found = find_played_hand(hand_form.cleaned_data["hand"])
        # A private table's hand is "no such hand" to outsiders: nothing to learn, not even that it exists.
        if found is None or not history.may_check_hand(hand=found, user=request.user):
            hand_missing = True
        else:
            check = check_played_hand(found)
    return render(
        request,
        "rules/fair.html",
        {
            "deck_form": deck_form,
            "hand_form": hand_form,
            "result": result,
            "deck_error": deck_error,
            "check": check,
            "hand_missing": hand_missing,
            **series_context(request),
        },
    )


class SeriesLookupForm(forms.Form):
    # Within a 32-bit database integer: a larger number is refused by the form, not the database.
    table = forms.IntegerField(label=gettext_lazy("Table number"), min_value=1, max_value=2**31 - 1)
    series = forms.IntegerField(
        label=gettext_lazy("Seed series (empty: list the table's series)"),
        required=False,
        min_value=1,
        max_value=2**31 - 1,
    )


def series_context(request: HttpRequest) -> dict[str, Any]:
    """The series part of the fair page: a table's series listed, or one of them checked."""
    form = SeriesLookupForm(request.GET if "table" in request.GET else None)
    context: dict[str, Any] = {"series_form": form}
    if not (form.is_bound and form.is_valid()):
        return context
    table = Table.objects.filter(pk=form.cleaned_data["table"]).first()
    # A private table's series are "no such table" to outsiders, as its hands are.
    if table is None or not sc.may_check_table(table=table, user=request.user):
        context["series_missing"] = "table"
        return context
    context["series_table"] = table
    context["chain_head"] = records.chain_head(table.pk)
    number = form.cleaned_data.get("series")
    if number is None:
        context["series_list"] = sc.table_series(table=table)
        return context
    found = sc.find_series(table_id=table.pk, number=number)
    if found is None:
        context["series_missing"] = "series"
        return context
    context["series_check"] = sc.check_table_series(found)
    return context


def series_file_view(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    found = sc.find_series(table_id=table_id, number=number)
    if found is None or not sc.may_check_table(table=found.table, user=request.user):
        return HttpResponse(
            gettext("There is no seed series %(number)s at table %(table)s.")
            % {"number": number, "table": table_id}
            + "\n",
            status=404,
            content_type="text/plain; charset=utf-8",
        )
    check = sc.check_table_series(found)  # reveals a series whose day is up
    if check.state == "sealed":
        return HttpResponse(
            gettext(
                "Seed series %(number)s at table %(table)s is still running: its file, with the seed "
                "and every deck, is available once it ends (the last player leaves, or 24 hours after "
                "its first hand)."
            )
            % {"number": number, "table": table_id}
            + "\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    body = json.dumps(sc.series_file(found), ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="svara-series-{table_id}-{number}.json"'
    return response
