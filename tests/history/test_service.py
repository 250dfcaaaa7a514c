"""Hand history logic (games.history.service): my hands and their filters, who may see a hand, replay steps.

The stored hands here are built from hand files with stacked decks, so every card is known, and
their results are computed with the engine's ``replay`` as the site does when it settles a hand.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import translation

from games.engine.cards import parse_card
from games.engine.fairness import seed_hash
from games.engine.handfile import replay
from games.history import service as history
from games.models import HandPlayer, PlayedHand, Table
from tests.engine.test_handfile import EXAMPLE as HAND_FORMAT_EXAMPLE
from tests.staff_roles import staff_with

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def deck(*hands: str) -> list[str]:
    """Deal these hands in dealing order (left of the dealer first)."""
    cards = [h.split() for h in hands]
    return [cards[p][k] for k in range(3) for p in range(len(cards))]


# HAND_FORMAT.md's example as the site stores it: bob bets dark, cem declines, cem folds, ann raises
# to 40, bob calls; bob (21) beats ann (17) at the showdown; cem's cards are never shown. (The
# example's out-of-turn raise by ann is left out: the site stores only the moves it accepted.)
FOLD_AND_SHOWDOWN = copy.deepcopy(HAND_FORMAT_EXAMPLE)  # the same hand, never shared
del FOLD_AND_SHOWDOWN["actions"][2]
# What each player holds, and the step (after the k-th accepted action) of the deal and showdown.
FOLD_AND_SHOWDOWN_CARDS = {0: {"bob": "7C 8S 10H", "cem": "AH 9S JD", "ann": "KD QC 7D"}}
FOLD_AND_SHOWDOWN_DEALS = {0: 2}
FOLD_AND_SHOWDOWN_SHOWN = {5: {(0, "ann"), (0, "bob")}}

# A svara: ann and bob tie on 20, cem (who folded) joins for half the pot, the replay is dealt;
# bob folds in the replay, ann (22) beats cem (17). cem's first cards and bob's replay cards are
# never shown to anyone else.
SVARA = {
    "format": "svara-hand/1",
    "stake": 10,
    "dark_play": False,
    "players": [{"name": "ann", "chips": 500}, {"name": "bob", "chips": 500}, {"name": "cem", "chips": 500}],
    "dealer": "cem",
    "decks": [deck("10H JH 8C", "10S JS 8D", "9C 9D 8H"), deck("AH AD 9S", "KC QC 8S", "7D JD QS")],
    "actions": [
        ["ann", "raise", 10],
        ["bob", "call"],
        ["cem", "fold"],
        ["cem", "join"],
        ["ann", "raise", 10],
        ["bob", "fold"],
        ["cem", "call"],
    ],
}
SVARA_CARDS = {
    0: {"ann": "10H JH 8C", "bob": "10S JS 8D", "cem": "9C 9D 8H"},
    1: {"ann": "AH AD 9S", "bob": "KC QC 8S", "cem": "7D JD QS"},
}
SVARA_DEALS = {0: 0, 1: 4}
SVARA_SHOWN = {3: {(0, "ann"), (0, "bob")}, 7: {(1, "ann"), (1, "cem")}}

SCENARIOS = {
    "fold_and_showdown": (
        FOLD_AND_SHOWDOWN,
        FOLD_AND_SHOWDOWN_CARDS,
        FOLD_AND_SHOWDOWN_DEALS,
        FOLD_AND_SHOWDOWN_SHOWN,
    ),
    "svara": (SVARA, SVARA_CARDS, SVARA_DEALS, SVARA_SHOWN),
}


def visible_cards(*, scenario: str, viewer: str | None, step: int) -> set[str]:
    """The cards ``viewer`` may have seen by ``step``, worked out from the scenario, not the engine:
    own cards of every deal dealt so far, and every hand shown at a showdown reached so far."""
    _, cards, deals, shown = SCENARIOS[scenario]
    out: set[str] = set()
    for deal, dealt_at in deals.items():
        if step >= dealt_at and viewer in cards[deal]:
            out |= set(cards[deal][viewer].split())
    for shown_at, hands in shown.items():
        if step >= shown_at:
            for deal, name in hands:
                out |= set(cards[deal][name].split())
    return out


def required_cards(*, scenario: str, viewer: str | None, step: int) -> set[str]:
    """What a step must show: own cards of the latest deal, and every hand shown so far."""
    _, cards, deals, shown = SCENARIOS[scenario]
    dealt = [deal for deal, dealt_at in deals.items() if step >= dealt_at]
    out: set[str] = set()
    if dealt and viewer in cards[max(dealt)]:
        out |= set(cards[max(dealt)][viewer].split())
    for shown_at, hands in shown.items():
        if step >= shown_at:
            for deal, name in hands:
                out |= set(cards[deal][name].split())
    return out


def all_cards(scenario: str) -> set[str]:
    _, cards, _, _ = SCENARIOS[scenario]
    return {c for by_name in cards.values() for text in by_name.values() for c in text.split()}


def make_user(name: str, **fields: Any):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=name, password="pw-for-tests-1", **fields)


def stored_hand(
    *,
    hand_file: dict[str, Any],
    users: dict[str, Any],
    table: Table | None = None,
    number: int = 1,
    started_at: datetime = T0,
    status: str = PlayedHand.Status.FINISHED,
) -> PlayedHand:
    """A PlayedHand and its HandPlayer rows as settlement writes them (games.live.records)."""
    table = table or Table.objects.create(name="Oak", stake=hand_file["stake"], seat_count=6)
    result = replay(hand_file)
    assert result["finished"]
    record = {
        **hand_file,
        "hand_id": f"{table.pk}-{number}",
        "table": table.pk,
        "started_at": started_at.isoformat(),
        "server_seed_hash": seed_hash(SEED),
        "server_seed": SEED,
        "client_seeds": ["" for _ in hand_file["players"]],
        "nonce": number,
        "result": result,
    }
    hand = PlayedHand.objects.create(
        table=table,
        number=number,
        status=status,
        started_at=started_at,
        ended_at=started_at + timedelta(minutes=1),
        server_seed_hash=seed_hash(SEED),
        server_seed=SEED,
        pot=result["pot"],
        winner=users.get(result["winner"]),
        client_seeds=record["client_seeds"],
        record=record,
    )
    for position, player in enumerate(hand_file["players"]):
        name = player["name"]
        if name in users:
            HandPlayer.objects.create(
                hand=hand,
                user=users[name],
                position=position,
                chips_before=player["chips"],
                chips_after=result["chips"][name],
                won=result["winner"] == name,
            )
    return hand


def step_cards(step: history.Step) -> set[str]:
    """Every card a step carries: seats and showdowns."""
    out = {face.code for seat in step.seats for face in seat.cards or []}
    out |= {face.code for shown in step.showdowns for hand in shown for face in hand.cards}
    return out


# ---------------------------------------------------------------- replay steps


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("viewer", ["ann", "bob", "cem", None])
def test_each_step_carries_only_the_cards_the_viewer_saw(scenario, viewer):
    hand_file = SCENARIOS[scenario][0]
    names = [p["name"] for p in hand_file["players"]]
    seat = names.index(viewer) if viewer else None
    steps = history.replay_steps(record=hand_file, seat=seat)
    for step in steps:
        carried = step_cards(step)
        assert carried <= visible_cards(scenario=scenario, viewer=viewer, step=step.number), step.number
        assert carried >= required_cards(scenario=scenario, viewer=viewer, step=step.number), step.number


def test_a_folded_hand_is_never_shown_but_its_owner_keeps_seeing_it():
    cem = 2
    for seat in (0, 1, None):
        for step in history.replay_steps(record=FOLD_AND_SHOWDOWN, seat=seat):
            assert step.seats[cem].cards is None
    steps = history.replay_steps(record=FOLD_AND_SHOWDOWN, seat=cem)
    assert [f.code for f in steps[-1].seats[cem].cards] == ["AH", "9S", "JD"]
    assert steps[-1].seats[cem].folded and steps[-1].seats[cem].face_down == 0


def test_a_stored_move_its_rules_refuse_stops_the_replay_loudly(caplog):
    """A stored hand holds only accepted moves: one the engine refuses is a fault named on the
    page and in the log, never a move silently skipped (which would replay another hand)."""
    record = {**copy.deepcopy(HAND_FORMAT_EXAMPLE), "hand_id": "7-1"}  # ann's out-of-turn raise
    with pytest.raises(
        history.ReplayError, match=r"action 2 \(ann raise 40\) is refused by rules version 1: not your turn"
    ):
        history.replay_steps(record=record, seat=0)
    assert "stored hand 7-1 cannot be replayed: action 2 (ann raise 40)" in caplog.text


def test_steps_follow_the_stored_actions():
    steps = history.replay_steps(record=FOLD_AND_SHOWDOWN, seat=0)
    # Five actions: five steps after the start.
    assert [s.number for s in steps] == [0, 1, 2, 3, 4, 5]
    assert steps[0].action is None and steps[0].phase == "dark"
    assert [(a.name, a.verb, a.amount) for a in steps[-1].log] == [
        ("bob", "dark", None),
        ("cem", "decline", None),
        ("cem", "fold", None),
        ("ann", "raise", 40),
        ("bob", "call", None),
    ]
    assert steps[1].pot == 30 + 10 and steps[1].seats[1].bet == 10
    assert steps[2].phase == "betting" and steps[2].target == 20
    assert steps[-1].finished and steps[-1].winner == "bob"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_last_step_matches_the_stored_result(scenario):
    hand_file = SCENARIOS[scenario][0]
    result = replay(hand_file)
    last = history.replay_steps(record=hand_file, seat=None)[-1]
    assert last.finished and last.winner == result["winner"]
    assert last.pot == result["pot"]
    assert {s.name: s.chips for s in last.seats} == result["chips"]


@pytest.mark.parametrize("language", ["en", "bg"])
def test_the_outcome_of_each_seat_is_its_chips_after_less_before_in_every_language(language):
    """The computer's name is shown in the viewer's language but stored in English: each seat's
    chips before the hand are found by its seat, not by the name it is shown under."""
    record = copy.deepcopy(FOLD_AND_SHOWDOWN)
    record["players"][1]["name"] = "Computer (easy)"  # bob's seat, played by the computer
    record["actions"] = [["Computer (easy)" if a[0] == "bob" else a[0], *a[1:]] for a in record["actions"]]
    record["dealer"] = "Computer (easy)" if record["dealer"] == "bob" else record["dealer"]
    result = replay(record)
    with translation.override(language):
        last = history.replay_steps(record=record, seat=None)[-1]
        outcomes = history.outcomes(record=record, last=last)
    start = [p["chips"] for p in record["players"]]
    assert [o.chips_before for o in outcomes] == start
    assert [o.chips_after for o in outcomes] == list(result["chips"].values())
    assert [o.net for o in outcomes] == [
        after - before for after, before in zip(result["chips"].values(), start)
    ]
    assert sum(o.net for o in outcomes) == 0 and any(o.net for o in outcomes)


def test_svara_phases_join_fee_and_replay():
    steps = history.replay_steps(record=SVARA, seat=2)
    assert [s.phase for s in steps] == [
        "betting",
        "betting",
        "betting",
        "join",
        "replay",
        "replay",
        "replay",
        "finished",
    ]
    assert steps[3].join_fee == 25 and steps[3].pot == 50
    assert steps[4].pot == 75 and steps[4].deal == 1
    # The tied showdown stays visible, as shown, after the replay is dealt.
    assert {h.name for h in steps[4].showdowns[0]} == {"ann", "bob"}
    assert steps[4].seats[1].cards is None and steps[4].seats[1].face_down == 3  # bob's new cards: hidden


def test_a_record_without_a_deal_cannot_be_replayed():
    with pytest.raises(history.ReplayError):
        history.replay_steps(record={}, seat=0)


@pytest.mark.parametrize(("raw", "expected"), [(None, 0), ("", 0), ("3", 3), ("99", 5), ("-2", 0), ("x", 0)])
def test_step_index_is_clamped(raw, expected):
    assert history.step_index(raw=raw, count=6) == expected


def test_cards_parse_as_the_engine_reads_them():
    # The scenarios' cards are all different, so a card's text names exactly one card in the hand.
    for scenario in SCENARIOS:
        cards = [parse_card(c) for c in all_cards(scenario)]
        assert len(cards) == len(set(cards)) == 9 * len(SCENARIOS[scenario][1])


# ---------------------------------------------------------------- my hands


@pytest.fixture
def three_hands(db):
    ann, bob, cem = make_user("ann"), make_user("bob"), make_user("cem")
    users = {"ann": ann, "bob": bob, "cem": cem}
    real = Table.objects.create(name="Oak", stake=10, seat_count=3)
    practice = Table.objects.create(name="Practice", stake=10, seat_count=3, kind="practice")
    big = Table.objects.create(name="Elm", stake=50, seat_count=3)
    big_file = {
        **FOLD_AND_SHOWDOWN,
        "stake": 50,
        "players": [{**p, "chips": 2000} for p in FOLD_AND_SHOWDOWN["players"]],
        "actions": [a if a[1] != "raise" else [*a[:2], 200] for a in FOLD_AND_SHOWDOWN["actions"]],
    }
    hands = {
        "oldest": stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=users, table=real, started_at=T0),
        "practice": stored_hand(
            hand_file=SVARA, users=users, table=practice, started_at=T0 + timedelta(days=1)
        ),
        "big": stored_hand(hand_file=big_file, users=users, table=big, started_at=T0 + timedelta(days=2)),
        "in_play": stored_hand(
            hand_file=SVARA,
            users=users,
            table=real,
            number=2,
            started_at=T0 + timedelta(days=3),
            status=PlayedHand.Status.IN_PLAY,
        ),
    }
    other = make_user("dan")
    stored_hand(hand_file=FOLD_AND_SHOWDOWN, users={"ann": other}, table=real, number=3)
    return users, hands


def pks(rows) -> list[int]:
    return [r.hand_id for r in rows]


def test_my_hands_are_mine_ended_and_newest_first(three_hands):
    users, hands = three_hands
    rows = history.hands_for(user=users["ann"], filters=history.HandFilters())
    assert pks(rows) == [hands["big"].pk, hands["practice"].pk, hands["oldest"].pk]
    assert all(r.user_id == users["ann"].pk for r in rows)
    nets = {r.hand_id: r.net for r in rows}
    assert nets[hands["oldest"].pk] == -50 and nets[hands["practice"].pk] == 65  # lost 50; won 95 for 30


@pytest.mark.parametrize(
    ("user", "filters", "expected"),
    [
        ("bob", history.HandFilters(result="won"), ["big", "oldest"]),
        ("bob", history.HandFilters(result="lost"), ["practice"]),
        ("ann", history.HandFilters(stake=50), ["big"]),
        ("ann", history.HandFilters(kind="practice"), ["practice"]),
        ("ann", history.HandFilters(kind="real"), ["big", "oldest"]),
        ("ann", history.HandFilters(since=T0.date() + timedelta(days=1)), ["big", "practice"]),
        ("ann", history.HandFilters(until=T0.date()), ["oldest"]),
        ("cem", history.HandFilters(result="won", kind="practice"), []),
    ],
)
def test_filters(three_hands, user, filters, expected):
    users, hands = three_hands
    rows = history.hands_for(user=users[user], filters=filters)
    assert pks(rows) == [hands[name].pk for name in expected]


def test_cancelled_hands_are_listed_and_filtered(three_hands):
    users, hands = three_hands
    # As games.live.records cancels a hand: the record and its players' rows, which carry its status.
    PlayedHand.objects.filter(pk=hands["oldest"].pk).update(status=PlayedHand.Status.CANCELLED)
    HandPlayer.objects.filter(hand=hands["oldest"]).update(hand_status=PlayedHand.Status.CANCELLED)
    ann = users["ann"]
    assert pks(history.hands_for(user=ann, filters=history.HandFilters(result="cancelled"))) == [
        hands["oldest"].pk
    ]
    assert hands["oldest"].pk not in pks(
        history.hands_for(user=ann, filters=history.HandFilters(result="lost"))
    )


def test_filter_form_ignores_what_does_not_validate():
    form, filters = history.filters_from(data={"result": "won", "stake": "7", "since": "not a date"})
    assert filters == history.HandFilters(result="won")
    assert form.errors  # shown next to the fields


# ---------------------------------------------------------------- who may see a hand


def test_viewing_players_staff_and_others(three_hands):
    users, hands = three_hands
    hand = hands["oldest"]
    assert history.viewing(pk=hand.pk, user=users["bob"]).seat == 1
    assert history.viewing(pk=hand.pk, user=users["cem"]).seat == 2
    outsider = make_user("eve")
    assert history.viewing(pk=hand.pk, user=outsider) is None
    staff = staff_with()
    seen = history.viewing(pk=hand.pk, user=staff)
    assert seen is not None and seen.seat is None
    # A hand in play is nobody's to see, not even staff's: its seed is still secret.
    assert history.viewing(pk=hands["in_play"].pk, user=users["ann"]) is None
    assert history.viewing(pk=hands["in_play"].pk, user=staff) is None


def test_a_name_that_disagrees_with_the_record_gives_the_spectator_view(three_hands):
    users, hands = three_hands
    hand = hands["oldest"]
    record = {**hand.record, "players": [{"name": "x", "chips": 1}, *hand.record["players"][1:]]}
    PlayedHand.objects.filter(pk=hand.pk).update(record=record)
    assert history.viewing(pk=hand.pk, user=users["ann"]).seat is None
    assert history.viewing(pk=hand.pk, user=users["bob"]).seat == 1
