"""What one viewer may see of a table: built from the engine's view for their seat.

Hidden cards never leave the server: a card is put into the view only when the engine's view for
this viewer holds it (own cards, hands shown at a showdown) or it was shown at the showdown of the
last hand. Templates get only this dict, so nothing can be hidden with CSS by mistake. The view is
data, no HTML: cards are the engine's, the log and the notice are the document's entries, and the
table's regions word and draw them in the viewer's language (games/tables/ui/).
"""

from __future__ import annotations

from typing import Any, Final, final

from django.utils.translation import gettext as _

from games.engine.hand import BETTING, DARK, JOIN
from games.engine.scoring import score_cards
from games.engine.table_rules import chips_to_be_dealt_in
from games.kinds import Broke
from games.live.document import Doc, LastHand, hand_of, position_of, table_kind
from games.live.entries import join_names, shown_name
from games.live.transitions import JOIN_SECONDS, ended_chips


def build_view(doc: Doc, *, user_id: int | None, version: int) -> dict[str, Any]:
    """The view for one viewer. ``doc`` is only read: the sockets of a table share it."""
    hand = hand_of(doc)
    info = doc["hand"]
    my_pos = position_of(doc, user_id) if user_id is not None else None
    my_index = info["positions"].index(my_pos) if hand and my_pos in info["positions"] else None
    engine = hand.view_for(my_index) if hand else None
    by_pos = {info["positions"][p["seat"]]: p for p in engine["players"]} if engine else {}
    # A svara's replay is dealt but not shown yet: everyone sees the tied showdown instead.
    pause = info.get("svara") if hand else None
    last = doc.get("last")
    to_act_pos = info["positions"][hand.to_act] if hand and hand.to_act is not None else None
    # An ended hand's seats take its result only when it is settled (the worker's next tick, or
    # later under load); until then they showed the chips each had before the hand.
    final = ended_chips(doc) if hand is None else {}
    moves = info.get("moves", {}) if hand and pause is None else {}
    seats = []
    for pos, seat in enumerate(doc["seats"]):
        if seat is None:
            seats.append({"position": pos, "empty": True})
            continue
        player = by_pos.get(pos)
        cards = None
        points = None
        # The last hand's result at this position is its player's: a newcomer in a seat freed
        # since is shown none of it, above all not the cards the leaver held as their own.
        result_here = hand is None and last is not None and _played_by(last, pos, seat["user_id"])
        mine_here = result_here and last is not None and "players" in last and pos == my_pos
        if pause is not None:
            if str(pos) in pause["shown"]:
                points, cards = pause["shown"][str(pos)]
        elif player is not None and player["cards"] is not None:
            cards, points = player["cards"], player["points"]
            if pos == my_pos and points is None:
                points = engine["own_points"]
        elif result_here and last and str(pos) in last["cards"]:
            cards, points = last["cards"][str(pos)], last["points"][str(pos)]
        elif mine_here and last and str(pos) in last.get("dealt", {}):
            # Your own hand at the result, shown or not (folded, or won without a showdown).
            cards = last["dealt"][str(pos)]
            points = score_cards(cards)
        move = moves.get(str(pos))
        seats.append(
            {
                "position": pos,
                "empty": False,
                "name": shown_name(seat["name"]),
                "user_id": seat["user_id"],
                "computer": bool(seat.get("bot")),  # no player page to link the name to
                # The computer wears the robot; a person without a face shows their first letter.
                "face": seat.get("face") or ("robot" if seat.get("bot") else ""),
                "chips": player["chips"] if player else final.get(pos, seat["chips"]),
                "bet": player["bet"] if player else 0,
                "in_hand": bool(player and player["in_hand"]),
                "has_cards": bool(player and player["has_cards"] and player["in_hand"]) and pause is None,
                "cards": list(cards) if cards else None,
                "points": points,
                "is_me": pos == my_pos,
                "is_dealer": pos == doc["dealer"],
                "to_act": pos == to_act_pos and pause is None,
                "sitting_out": seat["sitting_out"],
                "leaving": seat["leaving"],
                "won": result_here and last is not None and last["winner"] == pos,
                # This round's last move: [verb] or [verb, amount] (games/live/transitions.py, _note_move).
                "last_move": {"verb": move[0], "amount": move[1] if len(move) > 1 else None}
                if move
                else None,
                "folded": (
                    (player is not None and player["has_cards"] and not player["in_hand"])
                    if hand is not None
                    else bool(result_here and last and pos in last.get("folded", ()))
                ),
            }
        )
    view: dict[str, Any] = {
        "version": version,
        "epoch": doc.get("epoch", ""),
        "table": doc["table"],
        "seats": seats,
        "my_position": my_pos,
        "seated": my_pos is not None,
        "hand": None,
        "last": _last_view(doc) if last else None,
        "timer": doc.get("timer"),
        # Entries shared by every viewer, worded in each one's language by the regions.
        "log": doc["log"],
        "notice": doc.get("notice"),
        "actions": None,
        "new_game": _new_game_offered(doc),
    }
    if hand is not None:
        view["hand"] = {
            "number": info["number"],
            "seed_hash": info["seed_hash"],
            "phase": hand.phase,
            "pot": hand.pot,
            "target": hand.target,
            "svaras": hand.svaras,
            "to_act": to_act_pos if pause is None else None,
            "join_fee": hand.join_fee or None,
            # The length of this turn, for the clock on the seat to act (a svara's join is shorter).
            "turn_seconds": JOIN_SECONDS if hand.phase == JOIN else doc["table"]["turn_seconds"],
            "svara_pause": _pause_view(doc, pause) if pause is not None else None,
        }
        legal = hand.legal()
        if pause is None and legal is not None and my_index is not None and legal.seat == my_index:
            view["actions"] = _actions(hand, legal)
    return view


_MADE_HERE: Final = object()  # only ``public_view`` makes a PublicView


@final
class PublicView:
    """What every viewer of a table may see: the view of someone with no seat at it (a
    spectator's), whose only cards are those shown to everyone (a showdown, a svara's tied hands).

    The part of a frame that the sockets of a table share (games/tables/ui/regions.py) is rendered
    from this type only, and it is made only by ``public_view``: a viewer's own view, which may
    hold their cards, cannot be passed in its place (mypy, and a check at the render)."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any], *, made_by: object) -> None:
        if made_by is not _MADE_HERE:
            raise TypeError("a PublicView is made by public_view() only")
        self.data = data


def public_view(doc: Doc, *, version: int) -> PublicView:
    """The table as a spectator sees it: the engine's view for no seat, no own cards."""
    return PublicView(build_view(doc, user_id=None, version=version), made_by=_MADE_HERE)


def _played_by(last: LastHand, pos: int, user_id: int) -> bool:
    """Whether the last hand's player at ``pos`` is ``user_id``; a document written before the
    players were kept says nothing, and is taken as yes (the view then shows no one's own hand)."""
    players = last.get("players")
    return players is None or players.get(str(pos)) == user_id


def _actions(hand, legal) -> dict[str, Any]:
    stake = hand.stake
    actions: dict[str, Any] = {"verbs": list(legal.verbs), "phase": hand.phase}
    if hand.phase == DARK:
        actions["dark_amount"] = legal.dark_amount
    if hand.phase == JOIN:
        actions["join_fee"] = legal.join_fee
    if hand.phase == BETTING:
        actions["to_call"] = legal.to_call
        actions["call_to"] = hand.target
        actions["pass"] = hand.target == 0
        if legal.raise_range:
            low, high = legal.raise_range
            quick = []
            for label, factor in (("x2", 2), ("x5", 5), ("x10", 10)):
                amount = min(max(low, hand.target * factor if hand.target else stake * factor), high)
                quick.append({"label": label, "amount": amount})
            quick.append({"label": "MAX", "amount": high})
            actions["raise"] = {"min": low, "max": high, "step": stake, "quick": quick}
    return actions


def _pause_view(doc: Doc, pause: dict[str, Any]) -> dict[str, Any]:
    names = [doc["seats"][p]["name"] for p in pause["tied"] if doc["seats"][p]]
    # Worded as the log words a list of names ("ann and bob", the computer's in the viewer's words).
    worded = join_names([shown_name(name) for name in names], gettext=_)
    # The tied hands side by side in the svara's banner: shown at the showdown, so to every viewer.
    hands = [
        {
            "name": shown_name(doc["seats"][p]["name"]),
            "points": pause["shown"][str(p)][0],
            "cards": list(pause["shown"][str(p)][1]),
        }
        for p in pause["tied"]
        if doc["seats"][p] and str(p) in pause["shown"]
    ]
    return {"until": pause["until"], "names": worded, "points": pause["points"], "hands": hands}


def _last_view(doc: Doc) -> dict[str, Any]:
    last = doc["last"]
    # The name as the hand ended: the winner may have left since, and the seat be empty or taken.
    called_off = last["winner"] is None and "players" in last  # a svara called off (RULES.md §5)
    name = last.get("winner_name")
    if name is None and not called_off:  # a document written before the name was kept
        seat = doc["seats"][last["winner"]] if last["winner"] is not None else None
        name = seat["name"] if seat else "?"
    return {
        "number": last["number"],
        "seed_hash": last["seed_hash"],
        "client_seeds": last["client_seeds"],
        "pot": last["pot"],
        "winner_name": shown_name(name) if name is not None else None,
        "called_off": called_off,
    }


def _new_game_offered(doc: Doc) -> bool:
    """A table whose broke seats get a new game (practice), between hands, where one side
    cannot play another hand."""
    if table_kind(doc).broke is not Broke.NEW_GAME or doc["hand"] or doc.get("ended"):
        return False
    need = chips_to_be_dealt_in(doc["table"]["stake"])
    return any(s["chips"] < need for s in doc["seats"] if s)
