import json
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from games.live import practice
from games.models import Seat, Table


@pytest.fixture
def player(client):
    user = get_user_model().objects.create_user(username="ann", password="pw-ann-12345")
    client.force_login(user)
    return user


@pytest.mark.django_db(transaction=True)
def test_practice_page_offers_levels_and_starts_a_table_at_once(client, player):
    page = client.get("/practice/")
    assert page.status_code == 200
    text = page.content.decode()
    for level in ("easy", "normal", "hard"):
        assert f'value="{level}"' in text
    response = client.post("/practice/", {"level": "hard"})
    table = Table.objects.get(kind="practice", created_by=player)
    assert response.status_code == 302 and response["Location"] == f"/table/{table.pk}/"
    assert table.stake == 10 and table.dark_play and table.private
    assert set(Seat.objects.filter(table=table).values_list("bot_level", "table_chips")) == {
        ("", 500),
        ("hard", 500),
    }


@pytest.mark.django_db(transaction=True)
def test_practice_needs_a_login_and_a_known_level(client):
    assert client.get("/practice/").status_code == 302
    get_user_model().objects.create_user(username="bob", password="pw-bob-12345")
    client.login(username="bob", password="pw-bob-12345")
    response = client.post("/practice/", {"level": "godlike"}, follow=True)
    assert "choose a level" in response.content.decode()
    assert not Table.objects.filter(kind="practice").exists()


@pytest.mark.django_db(transaction=True)
def test_new_game_is_refused_while_both_can_play(client, player):
    client.post("/practice/", {"level": "easy"})
    table = Table.objects.get(kind="practice")
    response = client.post(f"/practice/{table.pk}/new-game/", follow=True)
    assert "both sides can still play" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_practice_table_page_offers_no_invite_or_buy_in(client, player):
    client.post("/practice/", {"level": "normal"})
    table = Table.objects.get(kind="practice")
    page = client.get(f"/table/{table.pk}/").content.decode()
    assert "practice chips" in page
    assert "Invite link" not in page and "buy-in 200" not in page


@pytest.mark.django_db(transaction=True)
def test_practice_offers_a_longer_turn_or_none_and_refuses_other_times(client, player):
    page = client.get("/practice/").content.decode()
    assert all(f'<option value="{s}"' in page for s in (30, 60, 120, 0)) and "no time limit" in page
    client.post("/practice/", {"level": "easy", "turn_seconds": "0"})
    table = Table.objects.get(kind="practice", created_by=player, status="open")
    assert table.turn_seconds == 0
    assert "no time limit" in client.get(f"/table/{table.pk}/").content.decode()
    client.post("/practice/", {"level": "easy", "turn_seconds": "120"})
    assert Table.objects.get(kind="practice", created_by=player, status="open").turn_seconds == 120
    response = client.post("/practice/", {"level": "easy", "turn_seconds": "7"}, follow=True)
    assert "choose a turn time from the list" in response.content.decode()
    assert Table.objects.filter(kind="practice", created_by=player, turn_seconds=7).count() == 0


@pytest.mark.django_db(transaction=True)
def test_each_level_is_introduced_with_its_measured_exploitability_from_the_results_file(client, player):
    text = client.get("/practice/").content.decode()
    for level, name in (("easy", "Uncle Pesho"), ("normal", "Aunt Stoyanka"), ("hard", "The Professor")):
        path = Path(settings.BASE_DIR) / f"bench/results/best_response_{level}.json"
        real = json.loads(path.read_text())["real"]
        assert practice.measured_exploitability(level=level) == {k: real[k] for k in ("mean", "low", "high")}
        assert name in text
        assert f"wins {real['mean']:.1f} chips a hand from it" in text
    bg = client.get("/practice/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Бай Пешо" in bg and "Измерено" in bg


def test_a_missing_or_broken_results_file_shows_no_figure(tmp_path):
    assert practice.measured_exploitability(level="easy", base=tmp_path) is None
    (tmp_path / "bench/results").mkdir(parents=True)
    (tmp_path / "bench/results/best_response_easy.json").write_text('{"real": {"mean": "x"}}')
    assert practice.measured_exploitability(level="easy", base=tmp_path) is None
    (tmp_path / "bench/results/best_response_easy.json").write_text(
        '{"real": {"mean": 2, "low": 1, "high": 3}}'
    )
    assert practice.measured_exploitability(level="easy", base=tmp_path) == {
        "mean": 2.0,
        "low": 1.0,
        "high": 3.0,
    }
