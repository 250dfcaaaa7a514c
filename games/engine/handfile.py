"""The hand file of HAND_FORMAT.md: read it, play it back, report the result.

``load_hand_file`` validates the whole file up front (a file that is not a valid hand raises
HandFileError, which the command line turns into exit 2); ``replay`` then feeds the actions to
the engine one by one, recording the refused ones, exactly as the site plays a hand.

A file ``svara-hand/2`` carries the rules its hand was played by (``"rules": {"version": 1, ...}``,
games.engine.rules); a ``svara-hand/1`` file (or one naming no format) was played by the first
rules, RULES_V1. A hand is replayed by its own rules. A hand the site stored holds only moves the
engine accepted, so ``replay(strict=True)`` (the history page, ``verify``) refuses the whole hand,
loudly, at the first move its rules refuse, rather than replaying something else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine.cards import CardError, card_text, parse_cards
from games.engine.hand import AWAITING_DECK, DeckError, Hand, is_whole_number, legal_json
from games.engine.rules import RULES_V1, Rules, RulesError

FORMAT = "svara-hand/2"
FORMAT_V1 = "svara-hand/1"  # read as a hand of RULES_V1; never written any more
FORMATS = (FORMAT, FORMAT_V1)
MIN_PLAYERS, MAX_PLAYERS = RULES_V1.min_seats, RULES_V1.max_seats  # a hand has a table's seats, RULES.md §3


class HandFileError(ValueError):
    """The file is not a valid hand file; the message is one line for a person."""


@dataclass(frozen=True)
class HandFile:
    stake: int
    dark_play: bool
    names: list[str]
    chips: list[int]
    dealer: int
    decks: list[list[int]]
    actions: list[list[Any]]  # [seat, verb] or [seat, verb, amount]
    rules: Rules = RULES_V1


def load_hand_file(data: object) -> HandFile:
    """Check a decoded hand file and turn names and cards into seats and card ints."""
    if not isinstance(data, dict):
        raise HandFileError("a hand file is a JSON object")
    fmt = data.get("format", FORMAT_V1)
    if fmt not in FORMATS:
        raise HandFileError(f"unknown format {fmt!r}: expected {FORMAT!r} (or {FORMAT_V1!r})")
    rules = _rules_of(data, fmt=fmt)
    stake = data.get("stake")
    if not is_whole_number(stake) or stake <= 0:
        raise HandFileError("stake must be a positive whole number")
    dark_play = data.get("dark_play", True)
    if not isinstance(dark_play, bool):
        raise HandFileError("dark_play must be true or false")
    players = data.get("players")
    if not isinstance(players, list) or not rules.min_seats <= len(players) <= rules.max_seats:
        raise HandFileError(
            f"players must be a list of {rules.min_seats} to {rules.max_seats} players (a table's seats)"
        )
    names: list[str] = []
    chips: list[int] = []
    for i, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("name"), str) or not player["name"]:
            raise HandFileError(f"player {i} needs a name")
        if not is_whole_number(player.get("chips")) or player["chips"] < 0:
            raise HandFileError(f"player {player['name']!r} needs chips: a whole number, not negative")
        names.append(player["name"])
        chips.append(player["chips"])
    if len(set(names)) != len(names):
        raise HandFileError("two players have the same name")
    if sum(c >= rules.deal_in_chips(stake=stake) for c in chips) < 2:
        raise HandFileError(
            f"fewer than two players have the {rules.deal_in_chips(stake=stake)} chips needed to be dealt in"
        )
    dealer_name = data.get("dealer")
    if dealer_name not in names:
        raise HandFileError(f"unknown player as dealer: {dealer_name!r}")
    decks_raw = data.get("decks")
    # [] is a hand that ended before its deal (everyone but one left): replay refuses it for a
    # hand that is dealt, so an empty list cannot stand in for a deck that was dealt.
    if not isinstance(decks_raw, list):
        raise HandFileError("decks must be a list of decks ([] for a hand that ended before the deal)")
    decks: list[list[int]] = []
    for k, deck in enumerate(decks_raw):
        if not isinstance(deck, list):
            raise HandFileError(f"deck {k} must be a list of cards")
        try:
            decks.append(parse_cards(deck))
        except CardError as exc:
            raise HandFileError(f"deck {k}: {exc}") from None
    actions_raw = data.get("actions", [])
    if not isinstance(actions_raw, list):
        raise HandFileError("actions must be a list")
    actions: list[list[Any]] = []
    for i, action in enumerate(actions_raw):
        if not isinstance(action, list) or not 2 <= len(action) <= 3 or not isinstance(action[1], str):
            raise HandFileError(f"action {i} must be [name, verb] or [name, verb, amount]")
        if action[0] not in names:
            raise HandFileError(f"action {i}: unknown player {action[0]!r}")
        actions.append([names.index(action[0]), *action[1:]])
    return HandFile(
        stake=stake,
        dark_play=dark_play,
        names=names,
        chips=chips,
        dealer=names.index(dealer_name),
        decks=decks,
        actions=actions,
        rules=rules,
    )


def _rules_of(data: dict[str, Any], *, fmt: str) -> Rules:
    """A /2 file's own rules; a /1 file's are the first rules (it has no ``rules`` key to read)."""
    if fmt == FORMAT_V1:
        if "rules" in data:
            raise HandFileError(f"a {FORMAT_V1!r} file has no rules: it was played by rules version 1")
        return RULES_V1
    if "rules" not in data:
        raise HandFileError(f'a {FORMAT!r} file names its rules: "rules": {{"version": 1, ...}}')
    try:
        return Rules.from_json(data["rules"])
    except RulesError as exc:
        raise HandFileError(f"rules: {exc}") from None


def start_hand(hand_file: HandFile, *, rules: Rules | None = None) -> Hand:
    """The hand at its start, by its own rules, or by ``rules`` (to replay it under others)."""
    try:
        return Hand.start(
            stake=hand_file.stake,
            names=hand_file.names,
            chips=hand_file.chips,
            dealer=hand_file.dealer,
            dark_play=hand_file.dark_play,
            decks=hand_file.decks,
            rules=hand_file.rules if rules is None else rules,
        )
    except (DeckError, ValueError) as exc:
        raise HandFileError(str(exc)) from None


def replay(data: object, *, strict: bool = False, rules: Rules | None = None) -> dict[str, Any]:
    """Play a decoded hand file back and return the result object of HAND_FORMAT.md.

    By the file's own rules unless ``rules`` is given. ``strict``: a refused action is not listed
    in ``refused`` but raises HandFileError (a stored hand holds only accepted moves: one its rules
    refuse means the hand cannot be replayed, not that it ended otherwise).
    """
    hand_file = load_hand_file(data)
    hand = start_hand(hand_file, rules=rules)
    _check_dealt(hand, at="at the start")
    refused: list[dict[str, Any]] = []
    for index, action in enumerate(hand_file.actions):
        seat, verb = action[0], action[1]
        amount = action[2] if len(action) == 3 else None
        reason = hand.refusal(seat, verb, amount)
        if reason is not None:
            if strict:
                raise HandFileError(refused_move(hand, index=index, action=action, reason=reason))
            refused.append({"index": index, "reason": reason})
            continue
        try:
            hand.act(seat, verb, amount)
        except DeckError as exc:
            raise HandFileError(str(exc)) from None
        _check_dealt(hand, at=f"action {index}")
    return hand_result(hand, refused=refused)


def refused_move(hand: Hand, *, index: int, action: list[Any], reason: str) -> str:
    """Why a stored move cannot be replayed, in one line: the move, the rules, the refusal."""
    move = " ".join(str(part) for part in [hand.names[action[0]], *action[1:]])
    return f"action {index} ({move}) is refused by rules version {hand.rules.version}: {reason}"


def _check_dealt(hand: Hand, *, at: str) -> None:
    """A file holds every deck it deals (HAND_FORMAT.md): a hand waiting for one is a file short of
    a deck, refused like a deck too short. The deck it waits for is the next one, ``decks[len]``."""
    if hand.phase != AWAITING_DECK:
        return
    if not hand.decks:
        raise HandFileError(
            f"{at}: no deck for the deal: decks is empty, which only a hand that ended before the deal has"
        )
    raise HandFileError(f"{at}: no deck for svara replay {len(hand.decks)}: decks has {len(hand.decks)}")


def hand_result(hand: Hand, *, refused: list[dict[str, Any]]) -> dict[str, Any]:
    names = hand.names
    result: dict[str, Any] = {
        "finished": hand.finished,
        "winner": names[hand.winner] if hand.winner is not None else None,
        "pot": hand.pot,
        "chips": {name: hand.chips[s] for s, name in enumerate(names)},
        "points": {names[s]: p for s, p in hand.points.items()},
        "svaras": hand.svaras,
        "refused": refused,
        "to_act": names[hand.to_act] if hand.to_act is not None else None,
    }
    if hand.to_act is not None:
        result["legal"] = legal_json(hand.legal())
    return result


def pots_won(hand: Hand) -> dict[int, int]:
    """Seat -> the chips a finished hand's pot paid it: the whole pot to its winner (RULES.md §4),
    or, in a svara called off (no winner, RULES.md §5), each tied player's share, split as the
    engine splits it (``Hand._call_off``: equal shares of the pot left once the join fees went
    back, a remainder chip at a time from the dealer's left). The figure the room counts as the
    pot a player won (games.standings)."""
    if not hand.finished:
        return {}
    if hand.winner is not None:
        return {hand.winner: hand.pot}
    showdown = hand.showdowns[-1]  # the tie, its hands in order from the dealer's left
    best = max(points for points, _cards in showdown.values())
    tied = [int(s) for s, (points, _cards) in showdown.items() if points == best]
    share, odd = divmod(hand.pot, len(tied))
    return {seat: share + (k < odd) for k, seat in enumerate(tied)}


def hand_file_of(hand: Hand) -> dict[str, Any]:
    """The hand file for a hand played on the site (the decks it dealt, the moves it took)."""
    return {
        "format": FORMAT,
        "rules": hand.rules.to_json(),
        "stake": hand.stake,
        "dark_play": hand.dark_play,
        "players": [{"name": n, "chips": c} for n, c in zip(hand.names, hand.starting_chips, strict=True)],
        "dealer": hand.names[hand.dealer],
        "decks": [[card_text(c) for c in deck] for deck in hand.decks],
        "actions": [[hand.names[a[0]], *a[1:]] for a in hand.actions],
    }
