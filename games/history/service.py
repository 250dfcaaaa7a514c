"""Hand history: a player's stored hands, and a hand replayed step by step.

The replay is rebuilt from the stored hand file with the engine: step k is the hand after its
first k accepted actions, seen through ``Hand.view_for(seat)``. Cards reach a step only through
that view (own cards, hands shown at a showdown), never from the decks or the engine's internals,
so a page built from a step cannot show a card the player did not see during the hand.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import ExpressionWrapper, F, IntegerField, Q, QuerySet
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy

from games import kinds
from games.engine.cards import Card
from games.engine.hand import BETTING, FINISHED, JOIN
from games.engine.handfile import HandFileError, load_hand_file, refused_move, start_hand
from games.live import series
from games.live.entries import shown_name
from games.models import STAKES, HandPlayer, PlayedHand
from games.tables.ui.cards import CardFace, card_face

# A hand in play is never listed, shown or downloaded: its seed and cards are still secret. An
# ended hand is listed and replayed (own cards, what was shown), but its seed, decks and file only
# once its seed series is revealed (``is_revealed``).
ENDED = (PlayedHand.Status.FINISHED, PlayedHand.Status.CANCELLED)
HANDS_PER_PAGE = 20

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------- "My hands"

_grouped = lazy(lambda number: number_format(number, force_grouping=True), str)


# The history's "Tables" filter: real chips (a kind whose chips are the wallet's) or practice.
KIND_FILTERS = {"real": kinds.names_where(money=True), kinds.PRACTICE.name: [kinds.PRACTICE.name]}


@dataclass(frozen=True)
class HandFilters:
    result: str = ""  # "", "won", "lost" or "cancelled"
    stake: int | None = None
    kind: str = ""  # "", "practice" or "real" (KIND_FILTERS)
    since: date | None = None
    until: date | None = None


class HandFilterForm(forms.Form):
    result = forms.ChoiceField(
        label=gettext_lazy("Result"),
        required=False,
        choices=[
            ("", gettext_lazy("Any result")),
            ("won", gettext_lazy("Won")),
            ("lost", gettext_lazy("Lost")),
            ("cancelled", gettext_lazy("Cancelled")),
        ],
    )
    stake = forms.TypedChoiceField(
        label=gettext_lazy("Stake"),
        required=False,
        coerce=int,
        empty_value=None,
        # Each label grouped in the reader's language when the form is drawn (1,000; 1 000).
        choices=[("", gettext_lazy("Any stake")), *[(s, _grouped(s)) for s in STAKES]],
    )
    kind = forms.ChoiceField(
        label=gettext_lazy("Tables"),
        required=False,
        choices=[
            ("", gettext_lazy("Practice and real")),
            ("real", gettext_lazy("Real chips only")),
            ("practice", gettext_lazy("Practice only")),
        ],
    )
    since = forms.DateField(
        label=gettext_lazy("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=gettext_lazy("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )


def filters_from(*, data: dict[str, Any]) -> tuple[HandFilterForm, HandFilters]:
    """The filter form bound to the query string, and the filters it allows.

    A field that does not validate is left out rather than failing the page: a stale bookmark
    with a stake the room no longer offers still lists the hands.
    """
    form = HandFilterForm(data)
    form.is_valid()
    clean = form.cleaned_data
    return form, HandFilters(
        result=clean.get("result") or "",
        stake=clean.get("stake"),
        kind=clean.get("kind") or "",
        since=clean.get("since"),
        until=clean.get("until"),
    )


def hands_for(*, user: AbstractBaseUser, filters: HandFilters) -> QuerySet[HandPlayer]:
    """The user's rows of ended hands, newest first, each with ``net`` = chips after - before.

    Read from the player's own rows in the order of their index (user, start, hand): the hand's
    start and status are copied onto them, so no page sorts or counts every hand of the room.
    """
    rows = (
        HandPlayer.objects.filter(user=user, hand_status__in=ENDED)
        .select_related("hand", "hand__table")
        .defer("hand__record", "hand__server_seed", "hand__client_seeds")
        .annotate(net=ExpressionWrapper(F("chips_after") - F("chips_before"), output_field=IntegerField()))
    )
    if filters.result == "won":
        rows = rows.filter(hand_status=PlayedHand.Status.FINISHED, won=True)
    elif filters.result == "lost":
        rows = rows.filter(hand_status=PlayedHand.Status.FINISHED, won=False)
    elif filters.result == "cancelled":
        rows = rows.filter(hand_status=PlayedHand.Status.CANCELLED)
    if filters.stake is not None:
        rows = rows.filter(hand__table__stake=filters.stake)
    if filters.kind:
        rows = rows.filter(hand__table__kind__in=KIND_FILTERS[filters.kind])
    if filters.since is not None:
        rows = rows.filter(started_at__gte=_day_start(filters.since))
    if filters.until is not None:
        rows = rows.filter(started_at__lt=_day_start(filters.until + timedelta(days=1)))
    # The hand breaks ties between hands started in the same instant, so pages never overlap.
    return rows.order_by("-started_at", "-hand_id")


def _day_start(day: date) -> datetime:
    # A range on the column itself (not its date), which the index serves.
    return timezone.make_aware(datetime.combine(day, time.min))


@dataclass(frozen=True)
class HandsPage:
    """A page of "My hands" and the hands its links continue from (None: no such page)."""

    rows: list[HandPlayer]
    newer_than: int | None  # the first hand listed, when newer hands exist
    older_than: int | None  # the last hand listed, when older hands exist


# A hand id in a page link: digits, as many as an id has.
_HAND_ID = re.compile(r"[0-9]{1,12}")


def hands_page(
    *,
    user: AbstractBaseUser,
    filters: HandFilters,
    older_than: str | None = None,
    newer_than: str | None = None,
) -> HandsPage:
    """A page of the user's hands: the newest, or those just older (or newer) than a hand listed.

    Paged from a hand, not by a number: a deep page costs what the first does, and a hand stored
    meanwhile does not shift the pages. A link naming no hand of the user's gives the first page.
    """
    rows = hands_for(user=user, filters=filters)
    size = HANDS_PER_PAGE
    older = _anchor(user=user, raw=older_than)
    newer = None if older else _anchor(user=user, raw=newer_than)
    if older is not None:
        at, hand_id = older
        found = list(
            rows.filter(Q(started_at__lt=at) | Q(hand_id__lt=hand_id), started_at__lte=at)[: size + 1]
        )
        more, found = len(found) > size, found[:size]
        return HandsPage(rows=found, newer_than=_first(found), older_than=_last(found) if more else None)
    if newer is not None:
        at, hand_id = newer
        later = rows.filter(Q(started_at__gt=at) | Q(hand_id__gt=hand_id), started_at__gte=at)
        found = list(later.order_by("started_at", "hand_id")[: size + 1])
        more, found = len(found) > size, found[:size][::-1]
        if not found:
            return hands_page(user=user, filters=filters)
        return HandsPage(rows=found, newer_than=_first(found) if more else None, older_than=_last(found))
    found = list(rows[: size + 1])
    more, found = len(found) > size, found[:size]
    return HandsPage(rows=found, newer_than=None, older_than=_last(found) if more else None)


def _anchor(*, user: AbstractBaseUser, raw: str | None) -> tuple[datetime, int] | None:
    if not isinstance(raw, str) or not _HAND_ID.fullmatch(raw.strip()):
        return None
    return HandPlayer.objects.filter(user=user, hand_id=int(raw)).values_list("started_at", "hand_id").first()


def _first(rows: list[HandPlayer]) -> int | None:
    return rows[0].hand_id if rows else None


def _last(rows: list[HandPlayer]) -> int | None:
    return rows[-1].hand_id if rows else None


# ---------------------------------------------------------------- who may see a hand


# The staff's right to look at any stored hand (the admin's hands list shows them too). The staff
# flag alone is only a way into the admin: a staff account with no permission opened every private
# table's replays, files and fair checks (issue 37).
HAND_VIEW_PERMISSION = "games.view_playedhand"


def sees_every_hand(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Staff with view rights on hands: they see any ended hand (as a spectator), private ones too."""
    return bool(user.is_authenticated and user.is_staff and user.has_perm(HAND_VIEW_PERMISSION))


@dataclass(frozen=True)
class Viewing:
    hand: PlayedHand
    seat: int | None  # the viewer's seat in the hand file; None: a staff member watching
    row: HandPlayer | None


def viewing(*, pk: int, user: AbstractBaseUser | AnonymousUser) -> Viewing | None:
    """The ended hand ``pk`` as this user may see it, or None (not theirs, in play, no such hand)."""
    hand = PlayedHand.objects.select_related("table", "series").filter(pk=pk, status__in=ENDED).first()
    if hand is None or not user.is_authenticated:
        return None
    rows = list(hand.players.order_by("position"))
    row = next((r for r in rows if r.user_id == user.pk), None)
    if row is None:
        return Viewing(hand=hand, seat=None, row=None) if sees_every_hand(user) else None
    return Viewing(hand=hand, seat=seat_in_record(record=hand.record, rows=rows, row=row), row=row)


def is_revealed(hand: PlayedHand) -> bool:
    """Whether the hand's seed, decks and file may be shown: it has ended and its seed series is
    revealed (one whose day is up is revealed now, if none of its hands is in play)."""
    if hand.status == PlayedHand.Status.IN_PLAY:
        return False
    if hand.series is not None and not hand.series.revealed:
        series.reveal_if_expired(hand.series)
    return hand.revealed


def checkable_by(hand: PlayedHand) -> datetime | None:
    """When a hand of a running series becomes checkable at the latest; None if it is already."""
    if hand.series is None or hand.series.revealed:
        return None
    return series.checkable_by(hand.series)


def may_check_hand(*, hand: PlayedHand, user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether the fair page may show this hand's seeds and decks to ``user``.

    Anyone, for a public table's hand (RULES.md §6: anyone can check it); a private table's hands,
    or those of a kind whose records are not public (practice: games.kinds), are for their players
    and staff with view rights on hands, as its replay and its file are (``viewing``).
    """
    table = hand.table
    if table.policy.records_public and not table.private:
        return True
    if not user.is_authenticated:
        return False
    return sees_every_hand(user) or hand.players.filter(user_id=user.pk).exists()


def seat_in_record(*, record: object, rows: list[HandPlayer], row: HandPlayer) -> int | None:
    """A player's index in the hand file's player list.

    The table deals in the seats in ascending position (games.live.transitions.ready_positions), so the
    rank of the row's position is the index; the name must agree, else the stored hand and its rows
    disagree and the viewer gets the spectator's view (showing less, never more).
    """
    players = record.get("players") if isinstance(record, dict) else None
    if not isinstance(players, list):
        return None
    index = [r.position for r in rows].index(row.position)
    username = row.user.get_username()
    if (
        len(rows) == len(players)
        and isinstance(players[index], dict)
        and players[index].get("name") == username
    ):
        return index
    names = [p.get("name") if isinstance(p, dict) else None for p in players]
    return names.index(username) if names.count(username) == 1 else None


# ---------------------------------------------------------------- the replay


class ReplayError(ValueError):
    """The stored hand cannot be replayed (a cancelled hand without its deal, a damaged record,
    a stored move its rules refuse); the message says why, for the page and the log."""


@dataclass(frozen=True)
class Action:
    name: str
    verb: str
    amount: int | None


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    chips: int
    bet: int
    in_hand: bool
    cards: list[CardFace] | None  # only cards this viewer saw at this point of the hand
    face_down: int  # how many card backs to draw in place of cards not seen
    folded: bool
    points: int | None
    is_viewer: bool
    is_dealer: bool
    to_act: bool
    won: bool

    @property
    def backs(self) -> range:
        return range(self.face_down)


@dataclass(frozen=True)
class Shown:
    """One hand shown at a showdown: public from that moment on."""

    name: str
    points: int
    cards: list[CardFace]


@dataclass(frozen=True)
class Step:
    number: int  # 0: antes in (and cards dealt without dark play); k: after the k-th action
    action: Action | None
    phase: str  # "dark", "betting", "join", "replay" (betting in a svara replay), "finished", ...
    deal: int  # 0 for the hand, k for its k-th svara replay
    pot: int
    target: int
    join_fee: int | None
    seats: list[SeatView]
    showdowns: list[list[Shown]]  # every showdown reached so far, in order
    log: list[Action]  # the actions up to and including this one
    own_points: int | None
    winner: str | None

    @property
    def finished(self) -> bool:
        return self.phase == FINISHED


def replay_steps(*, record: object, seat: int | None) -> list[Step]:
    """Every step of a stored hand as ``seat`` saw it (None: a spectator), by the hand's own rules.

    A stored hand holds only the moves the engine accepted when it was played: a move its rules
    refuse now means the record and the engine disagree, so the replay stops there, loudly
    (ReplayError, logged), rather than showing a hand that was not played.
    """
    try:
        hand_file = load_hand_file(record)
        hand = start_hand(hand_file)
    except HandFileError as exc:
        raise ReplayError(str(exc)) from None
    names = [shown_name(name) for name in hand_file.names]
    log: list[Action] = []
    steps = [_step(view=hand.view_for(seat), seat=seat, number=0, log=log)]
    for index, move in enumerate(hand_file.actions):
        who, verb = move[0], move[1]
        amount = move[2] if len(move) == 3 else None
        reason = hand.refusal(who, verb, amount)
        if reason is not None:
            problem = refused_move(hand, index=index, action=move, reason=reason)
            hand_id = record.get("hand_id") if isinstance(record, dict) else None
            logger.error("stored hand %s cannot be replayed: %s", hand_id, problem)
            raise ReplayError(problem)
        try:
            hand.act(who, verb, amount)
        except ValueError as exc:  # a deck missing for a svara replay
            raise ReplayError(str(exc)) from None
        log = [*log, Action(name=names[who], verb=verb, amount=amount)]
        steps.append(_step(view=hand.view_for(seat), seat=seat, number=len(steps), log=log))
    return steps


def _faces(cards: list[Card] | None) -> list[CardFace] | None:
    return [card_face(c) for c in cards] if cards else None


def _step(*, view: dict[str, Any], seat: int | None, number: int, log: list[Action]) -> Step:
    # Only ``view`` (the engine's view for this seat) is read here: it is what decides what was seen.
    names = [shown_name(p["name"]) for p in view["players"]]
    seats = []
    for p, name in zip(view["players"], names, strict=True):
        cards = _faces(p["cards"])
        seats.append(
            SeatView(
                index=p["seat"],
                name=name,
                chips=p["chips"],
                bet=p["bet"],
                in_hand=p["in_hand"],
                cards=cards,
                face_down=3 if p["has_cards"] and p["in_hand"] and cards is None else 0,
                folded=p["has_cards"] and not p["in_hand"],
                points=p["points"],
                is_viewer=p["seat"] == seat,
                is_dealer=p["seat"] == view["dealer"],
                to_act=p["seat"] == view["to_act"],
                won=p["seat"] == view["winner"],
            )
        )
    showdowns = [
        [
            Shown(name=names[int(s)], points=points, cards=_faces(cards) or [])
            for s, (points, cards) in sd.items()
        ]
        for sd in view["showdowns"]
    ]
    phase = view["phase"]
    if phase == BETTING and view["svaras"]:
        phase = "replay"
    return Step(
        number=number,
        action=log[-1] if log else None,
        phase=phase,
        deal=view["svaras"],
        pot=view["pot"],
        target=view["target"],
        join_fee=view["join_fee"] if phase == JOIN else None,
        seats=seats,
        showdowns=showdowns,
        log=log,
        own_points=view["own_points"],
        winner=names[view["winner"]] if view["winner"] is not None else None,
    )


def step_index(*, raw: str | None, count: int) -> int:
    """The step a ``?step=`` asks for, clamped to the hand; none or nonsense: the first."""
    try:
        wanted = int(raw or 0)
    except ValueError:
        return 0
    return max(0, min(wanted, count - 1))


@dataclass(frozen=True)
class Outcome:
    name: str
    chips_before: int
    chips_after: int
    net: int
    won: bool


def outcomes(*, record: dict[str, Any], last: Step) -> list[Outcome]:
    """Each player's chips before and after the hand, from the replay's last step. By seat: a
    name is shown in the viewer's language (the computer's), the record keeps it as stored."""
    before = [p["chips"] for p in record.get("players", [])]
    outcomes = []
    for s in last.seats:
        start = before[s.index] if s.index < len(before) else s.chips
        outcomes.append(
            Outcome(name=s.name, chips_before=start, chips_after=s.chips, net=s.chips - start, won=s.won)
        )
    return outcomes
