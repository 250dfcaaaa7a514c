"""A private (or practice) table's hands are for their players and staff with view rights on hands
(``games.view_playedhand``; the staff flag alone opens nothing): the fair page, the replay and the
download give anyone else, logged out or not, the answer for a hand that does not exist. A public
table's ended hands stay checkable by anyone on the fair page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import HandPlayer, PlayedHand, Table
from tests.history.test_service import FOLD_AND_SHOWDOWN, make_user, stored_hand
from tests.rules.test_fair_page import SEED
from tests.staff_roles import staff_with

pytestmark = pytest.mark.django_db
NO_SUCH_HAND = "There is no stored hand with that number."


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.fixture
def people(db):
    names = ("ann", "bob", "cem")
    return {
        **{name: make_user(name) for name in names},
        "eve": make_user("eve"),
        "sam": staff_with(),  # view rights on the room's models, hands among them
        # Issue 37: a staff account with no permission at all opened every private hand.
        "nox": make_user("nox", is_staff=True),
    }


def private_hand(people, *, practice: bool = False, status: str = PlayedHand.Status.FINISHED) -> PlayedHand:
    table = Table.objects.create(
        name="Back room", stake=10, seat_count=3, private=True, kind="practice" if practice else "cash"
    )
    players = {name: people[name] for name in ("ann", "bob", "cem")}
    return stored_hand(hand_file=FOLD_AND_SHOWDOWN, users=players, table=table, status=status)


def same_page(a: bytes, b: bytes, *, here: str, nowhere: str) -> bool:
    """Equal but for the CSRF tokens (masked anew in every response) and the address asked for."""

    def plain(page: bytes, asked: str) -> str:
        text = re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", page.decode())
        for quoted in (f'value="{asked}"', f'hand={asked}"'):  # the form's box, the language form's next
            text = text.replace(quoted, "ASKED")
        return text

    return plain(a, here) == plain(b, nowhere)


def fair(client: Client, ref: str) -> str:
    return client.get("/fair/", {"hand": ref}).content.decode()


@pytest.mark.parametrize("practice", [False, True])
@pytest.mark.parametrize("status", [PlayedHand.Status.FINISHED, PlayedHand.Status.IN_PLAY])
def test_the_fair_page_shows_a_private_hand_to_its_players_and_staff_only(people, practice, status):
    hand = private_hand(people, practice=practice, status=status)
    for ref in (f"{hand.table_id}-{hand.number}", str(hand.pk)):
        for client in (Client(), logged_in(people["eve"]), logged_in(people["nox"])):
            elsewhere = "987654-1" if "-" in ref else "987654"
            html, nowhere = fair(client, ref), fair(client, elsewhere)
            assert NO_SUCH_HAND in html and SEED not in html and hand.server_seed_hash not in html
            assert 'data-hand-check="missing"' in html
            assert same_page(html.encode(), nowhere.encode(), here=ref, nowhere=elsewhere)
        for name in ("cem", "sam"):
            html = fair(logged_in(people[name]), ref)
            assert NO_SUCH_HAND not in html and 'data-hand-check="missing"' not in html, name
            in_play = status == PlayedHand.Status.IN_PLAY
            assert 'data-hand-check="in_play"' in html if in_play else SEED in html


def test_a_public_tables_hand_is_checkable_by_anyone(people):
    hand = stored_hand(hand_file=FOLD_AND_SHOWDOWN, users={n: people[n] for n in ("ann", "bob", "cem")})
    assert not hand.table.private
    html = fair(Client(), f"{hand.table_id}-{hand.number}")
    assert 'data-hand-check="checked' in html and SEED in html


def test_the_replay_and_the_download_of_a_private_hand_follow_the_same_rule(people):
    hand = private_hand(people)
    missing = hand.pk + 1000
    assert not PlayedHand.objects.filter(pk=missing).exists()
    for path in ("/hands/{}/", "/hands/{}/hand.json", "/hands/{}/?step=3"):
        here, nowhere = path.format(hand.pk), path.format(missing)
        # Logged out: sent to log in, as for a hand that does not exist.
        out, out_missing = Client().get(here), Client().get(nowhere)
        assert out.status_code == out_missing.status_code == 302
        assert out["Location"].split("?")[0] == out_missing["Location"].split("?")[0] == "/accounts/login/"
        # Another player, or staff without view rights on hands: the same 404 as for no such hand.
        for name in ("eve", "nox"):
            other = logged_in(people[name])
            refused, absent = other.get(here), other.get(nowhere)
            assert refused.status_code == absent.status_code == 404, (name, path)
            assert same_page(refused.content, absent.content, here=here, nowhere=nowhere)
            assert SEED not in refused.content.decode()
        for name in ("ann", "sam"):
            assert logged_in(people[name]).get(here).status_code == 200, (name, path)
    assert HandPlayer.objects.filter(hand=hand).count() == 3
