"""Registering for sit-and-gos (games.tournaments.service): the buy-in through the ledger's prize
pool, the last seat starting the tournament, the end paying the places; every refusal changes
nothing, and races on PostgreSQL give one answer each and never move a chip twice."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.ledger.errors import InsufficientFunds, LedgerError
from accounts.models import LedgerTransaction, LossLimit, PlayBreak, User
from accounts.services import audit_ledger, grant_signup_bonus, wallet_balance
from accounts.services.prize_pools import pool_balance
from games.engine.tournament import FORMATS, Out, SitAndGo
from games.models import Entry, Tournament
from games.tournaments.service import (
    Registered,
    TournamentRefused,
    cancel,
    finish,
    open_tournament,
    open_tournaments,
    register,
    unregister,
)
from tests.accounts.test_concurrency import run_together

_names = itertools.count(1)
HEADS_UP = SitAndGo(seats=2, speed="turbo", buy_in=100)
SIX_MAX = SitAndGo(seats=6, speed="regular", buy_in=500)


def new_player(chips: bool = True) -> User:
    n = next(_names)
    user = User.objects.create_user(username=f"sng{n}", email=f"sng{n}@example.com", password=None)
    if chips:
        grant_signup_bonus(user=user)  # 1,000 chips
    return user


def ledger_sound() -> None:
    report = audit_ledger()
    assert report.ok, report.problems


@pytest.mark.django_db
def test_the_lobby_always_has_one_open_sit_and_go_of_each_format():
    first = open_tournaments()
    assert [t.format_key for t in first] == [f.key for f in FORMATS]
    assert open_tournaments() == first  # asking again opens nothing new
    assert Tournament.objects.count() == len(FORMATS)


@pytest.mark.django_db
def test_registering_moves_the_buy_in_into_the_pool_and_unregistering_moves_it_back():
    player = new_player()
    tournament = open_tournament(sit_and_go=SIX_MAX)
    done = register(user=player, tournament_id=tournament.pk)
    assert isinstance(done, Registered) and not done.started
    assert wallet_balance(user=player) == 500 and pool_balance(tournament_id=tournament.pk) == 500
    with pytest.raises(TournamentRefused, match="already registered"):
        register(user=player, tournament_id=tournament.pk)
    unregister(user=player, tournament_id=tournament.pk)
    assert wallet_balance(user=player) == 1000 and pool_balance(tournament_id=tournament.pk) == 0
    with pytest.raises(TournamentRefused, match="not registered"):
        unregister(user=player, tournament_id=tournament.pk)
    register(user=player, tournament_id=tournament.pk)  # again, as a new entry
    assert Entry.objects.filter(tournament=tournament, user=player).count() == 2
    kinds = Counter(LedgerTransaction.objects.values_list("kind", flat=True))
    assert kinds["sng_buy_in"] == 2 and kinds["sng_refund"] == 1
    ledger_sound()


@pytest.mark.django_db
def test_a_refused_registration_changes_nothing():
    tournament = open_tournament(sit_and_go=SitAndGo(seats=6, speed="turbo", buy_in=2000))
    poor = new_player()  # 1,000 chips for a 2,000 buy-in
    before = LedgerTransaction.objects.count()
    with pytest.raises(InsufficientFunds):
        register(user=poor, tournament_id=tournament.pk)
    assert not Entry.objects.exists() and LedgerTransaction.objects.count() == before
    assert wallet_balance(user=poor) == 1000
    for bad in (0, -1, "1", None, True, 10**9):
        with pytest.raises(TournamentRefused, match="no such tournament"):
            register(user=poor, tournament_id=bad)  # type: ignore[arg-type]


@pytest.mark.django_db
def test_the_computer_cannot_register_and_a_break_or_a_loss_limit_stops_a_player():
    tournament = open_tournament(sit_and_go=HEADS_UP)
    computer = User.objects.get(computer_level="hard")
    with pytest.raises(TournamentRefused, match="practice tables only"):
        register(user=computer, tournament_id=tournament.pk)
    resting = new_player()
    PlayBreak.objects.create(user=resting, kind="time_out", ends_at=timezone.now() + timedelta(days=1))
    with pytest.raises(LedgerError):
        register(user=resting, tournament_id=tournament.pk)
    careful = new_player()
    LossLimit.objects.create(user=careful, period="day", amount=50)
    with pytest.raises(LedgerError, match="loss limit"):
        register(user=careful, tournament_id=tournament.pk)
    assert not Entry.objects.exists() and pool_balance(tournament_id=tournament.pk) == 0


@pytest.mark.django_db
def test_the_last_seat_starts_the_tournament_at_random_seats_and_opens_the_next_one():
    tournament = open_tournament(sit_and_go=SIX_MAX)
    players = [new_player() for _ in range(6)]
    results = [register(user=p, tournament_id=tournament.pk) for p in players]
    assert [r.started for r in results] == [False] * 5 + [True]
    tournament.refresh_from_db()
    assert tournament.status == "running" and tournament.started_at is not None
    assert sorted(Entry.objects.filter(tournament=tournament).values_list("seat", flat=True)) == list(
        range(6)
    )
    nxt = open_tournament(sit_and_go=SIX_MAX)
    assert nxt.pk != tournament.pk and nxt.status == "open"
    late = new_player()
    with pytest.raises(TournamentRefused, match="already started"):
        register(user=late, tournament_id=tournament.pk)
    with pytest.raises(TournamentRefused, match="only before the start"):
        unregister(user=players[0], tournament_id=tournament.pk)
    assert pool_balance(tournament_id=tournament.pk) == 3000
    ledger_sound()


@pytest.mark.django_db
def test_the_end_pays_the_places_from_the_pool_in_one_transaction():
    tournament = open_tournament(sit_and_go=SIX_MAX)
    players = [new_player() for _ in range(6)]
    for p in players:
        register(user=p, tournament_id=tournament.pk)
    ids = [str(p.pk) for p in players]
    outs = [
        Out(player=ids[5], hand=4, began_with=300),
        Out(player=ids[4], hand=9, began_with=800),
        Out(player=ids[3], hand=9, began_with=600),
        Out(player=ids[2], hand=15, began_with=2000),
        Out(player=ids[1], hand=30, began_with=4000),
    ]
    entries = finish(tournament_id=tournament.pk, outs=outs, winner=ids[0])
    by_user = {e.user_id: (e.place, e.prize) for e in entries}
    assert by_user[players[0].pk] == (1, 1950) and by_user[players[1].pk] == (2, 1050)
    assert by_user[players[4].pk] == (4, 0) and by_user[players[3].pk] == (5, 0)
    assert wallet_balance(user=players[0]) == 500 + 1950 and wallet_balance(user=players[1]) == 500 + 1050
    assert pool_balance(tournament_id=tournament.pk) == 0
    assert LedgerTransaction.objects.filter(kind="sng_prizes").count() == 1
    with pytest.raises(TournamentRefused, match="Only a running"):
        finish(tournament_id=tournament.pk, outs=outs, winner=ids[0])
    ledger_sound()


@pytest.mark.django_db
def test_a_result_that_does_not_name_each_player_once_pays_nothing():
    tournament = open_tournament(sit_and_go=HEADS_UP)
    a, b = new_player(), new_player()
    register(user=a, tournament_id=tournament.pk)
    register(user=b, tournament_id=tournament.pk)
    with pytest.raises(TournamentRefused):
        finish(tournament_id=tournament.pk, outs=[], winner=str(a.pk))
    assert pool_balance(tournament_id=tournament.pk) == 200
    assert Tournament.objects.get(pk=tournament.pk).status == "running"


# ---------------------------------------------------------------- races (PostgreSQL, real locks)


def answers(results: list[object]) -> Counter:
    return Counter(type(r).__name__ if isinstance(r, Exception) else "ok" for r in results)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_eight_players_for_the_two_seats_of_a_heads_up_two_get_them(postgres_db):
    tournament = open_tournament(sit_and_go=HEADS_UP)
    players = [new_player() for _ in range(8)]
    results = run_together([lambda p=p: register(user=p, tournament_id=tournament.pk) for p in players])
    assert answers(results) == Counter({"ok": 2, "TournamentRefused": 6})
    assert sum(isinstance(r, Registered) and r.started for r in results) == 1
    assert pool_balance(tournament_id=tournament.pk) == 200
    assert sorted(wallet_balance(user=p) for p in players) == [900, 900] + [1000] * 6
    assert Tournament.objects.filter(format_key=HEADS_UP.key, status="open").count() == 1
    ledger_sound()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_player_registering_from_eight_tabs_pays_once(postgres_db):
    tournament = open_tournament(sit_and_go=SIX_MAX)
    player = new_player()
    results = run_together([lambda: register(user=player, tournament_id=tournament.pk)] * 8)
    assert answers(results) == Counter({"ok": 1, "TournamentRefused": 7})
    assert wallet_balance(user=player) == 500 and pool_balance(tournament_id=tournament.pk) == 500
    ledger_sound()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_unregistering_while_the_last_seat_is_taken_gives_one_answer(postgres_db):
    for _ in range(5):
        tournament = open_tournament(sit_and_go=HEADS_UP)
        first, second = new_player(), new_player()
        register(user=first, tournament_id=tournament.pk)
        results = run_together(
            [
                lambda u=first, t=tournament.pk: unregister(user=u, tournament_id=t),
                lambda u=second, t=tournament.pk: register(user=u, tournament_id=t),
            ]
        )
        tournament.refresh_from_db()
        if isinstance(results[0], Exception):  # the start came first: first plays, buy-in stays
            assert isinstance(results[0], TournamentRefused) and tournament.status == "running"
            assert pool_balance(tournament_id=tournament.pk) == 200
        else:  # the unregistration came first: second waits alone
            assert isinstance(results[1], Registered) and tournament.status == "open"
            assert wallet_balance(user=first) == 1000 and pool_balance(tournament_id=tournament.pk) == 100
        ledger_sound()


@pytest.mark.django_db
def test_a_tournament_buy_in_counts_against_the_loss_limit_until_it_comes_back():
    player = new_player()
    LossLimit.objects.create(user=player, period="day", amount=600)
    first = open_tournament(sit_and_go=SIX_MAX)
    register(user=player, tournament_id=first.pk)  # 500 of the day's 600
    other = open_tournament(sit_and_go=SitAndGo(seats=2, speed="regular", buy_in=500))
    with pytest.raises(LedgerError, match="loss limit"):
        register(user=player, tournament_id=other.pk)
    unregister(user=player, tournament_id=first.pk)  # the refund gives the room back
    register(user=player, tournament_id=other.pk)
    assert wallet_balance(user=player) == 500


# ---------------------------------------------------------------- cancelled by staff


def staff_member(*, may_cancel: bool = True) -> User:
    from django.contrib.auth.models import Permission

    n = next(_names)
    user = User.objects.create_user(username=f"staff{n}", email=f"staff{n}@example.com", is_staff=True)
    if may_cancel:
        user.user_permissions.add(Permission.objects.get(codename="cancel_tournament"))
    return User.objects.get(pk=user.pk)  # fresh: permissions are cached per object


@pytest.mark.django_db
def test_staff_cancel_before_the_start_gives_every_buy_in_back_and_logs_it_once():
    from accounts.models import StaffAction

    tournament = open_tournament(sit_and_go=SIX_MAX)
    players = [new_player() for _ in range(3)]
    for p in players:
        register(user=p, tournament_id=tournament.pk)
    staff = staff_member()
    shares = cancel(tournament_id=tournament.pk, staff_user=staff, reason="server move", token="form-1")
    assert shares == {p.pk: 500 for p in players}
    assert [wallet_balance(user=p) for p in players] == [1000] * 3
    assert pool_balance(tournament_id=tournament.pk) == 0
    tournament.refresh_from_db()
    assert tournament.status == "cancelled" and tournament.cancel_reason == "server move"
    assert StaffAction.objects.filter(kind="sng_cancel", token="form-1").count() == 1
    assert open_tournament(sit_and_go=SIX_MAX).pk != tournament.pk  # a new one is open
    with pytest.raises(TournamentRefused, match="ended already"):
        cancel(tournament_id=tournament.pk, staff_user=staff, reason="again")
    ledger_sound()


@pytest.mark.django_db
def test_staff_cancel_after_the_start_shares_the_pool_by_the_chips_held():
    tournament = open_tournament(sit_and_go=SitAndGo(seats=2, speed="regular", buy_in=100))
    a, b = new_player(), new_player()
    register(user=a, tournament_id=tournament.pk)
    register(user=b, tournament_id=tournament.pk)
    shares = cancel(
        tournament_id=tournament.pk, staff_user=staff_member(), reason="bug", chips={a.pk: 2250, b.pk: 750}
    )
    assert shares == {a.pk: 150, b.pk: 50}
    assert wallet_balance(user=a) == 1050 and wallet_balance(user=b) == 950
    ledger_sound()


@pytest.mark.django_db
def test_cancel_needs_the_right_and_a_reason_and_changes_nothing_without():
    from accounts.staff_log.errors import StaffRefusal

    tournament = open_tournament(sit_and_go=HEADS_UP)
    player = new_player()
    register(user=player, tournament_id=tournament.pk)
    with pytest.raises(StaffRefusal, match="right to cancel tournaments"):
        cancel(tournament_id=tournament.pk, staff_user=staff_member(may_cancel=False), reason="x")
    with pytest.raises(StaffRefusal, match="reason"):
        cancel(tournament_id=tournament.pk, staff_user=staff_member(), reason="  ")
    assert Tournament.objects.get(pk=tournament.pk).status == "open"
    assert wallet_balance(user=player) == 900


@pytest.mark.django_db(transaction=True)
def test_a_time_out_or_a_self_exclusion_withdraws_the_player_from_sit_and_gos_not_started():
    from accounts.services.responsible import take_break

    heads_up, six_max = open_tournament(sit_and_go=HEADS_UP), open_tournament(sit_and_go=SIX_MAX)
    resting, excluded = new_player(), new_player()
    register(user=resting, tournament_id=heads_up.pk)
    register(user=excluded, tournament_id=six_max.pk)
    take_break(user=resting, period="24h")
    assert wallet_balance(user=resting) == 1000 and pool_balance(tournament_id=heads_up.pk) == 0
    take_break(user=excluded, period="6months")
    assert wallet_balance(user=excluded) == 1000 and pool_balance(tournament_id=six_max.pk) == 0
    assert not Entry.objects.filter(unregistered_at__isnull=True).exists()
    ledger_sound()
