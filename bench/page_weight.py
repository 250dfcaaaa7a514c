"""What the table page weighs on the wire: its HTML (a seated player's turn in the betting round,
the heaviest of its states), and every stylesheet and script it links, raw and compressed.

The static files are served compressed (collectstatic writes gzip and Brotli copies; nginx and
WhiteNoise send them); the page's HTML as it leaves Django. Run on a fresh SQLite database in a
temporary directory and the in-memory table store, so it needs no service. Prints a table (bytes)
and writes bench/results/page_weight.json.

    python -m bench.page_weight
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ASSET_RE = re.compile(r'<(?:link[^>]+href|script[^>]+src)="(/static/[^"]+\.(?:css|js))"')


def _setup(var_dir: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "svara_site.settings"
    os.environ["DEBUG"] = "true"  # the static files from the finders, no collectstatic needed
    os.environ["SVARA_VAR_DIR"] = var_dir
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir}/weight.sqlite3"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _turn_page() -> tuple[str, object]:
    """A heads-up table in its betting round; the HTML of the player to act, and a test client."""
    from asgiref.sync import async_to_sync
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.services import grant_signup_bonus
    from games.live import service
    from games.live.document import hand_of
    from games.models import Table

    users = []
    for name in ("weight-ann", "weight-bob"):
        user = get_user_model().objects.create_user(username=name, password="weight-pass-91")
        grant_signup_bonus(user=user)
        users.append(user)
    table = Table.objects.create(name="Weight", stake=10, seat_count=2, dark_play=True, turn_seconds=30)
    for position, user in enumerate(users):
        async_to_sync(service.table_sit)(user=user, table_id=table.pk, position=position, buy_in=500)
    async_to_sync(service.start_next_hand)(table_id=table.pk)
    for _ in range(4):  # no dark bet: on to the betting round
        state = async_to_sync(service.load_table_state)(table.pk)
        hand = hand_of(state.doc)
        if hand.phase != "dark":
            break
        position = state.doc["hand"]["positions"][hand.to_act]
        user = next(u for u in users if u.pk == state.doc["seats"][position]["user_id"])
        async_to_sync(service.table_act)(
            user=user,
            table_id=table.pk,
            verb="decline",
            amount=None,
            client_version=state.version,
            action_id="w",
        )
    state = async_to_sync(service.load_table_state)(table.pk)
    hand = hand_of(state.doc)
    position = state.doc["hand"]["positions"][hand.to_act]
    actor = next(u for u in users if u.pk == state.doc["seats"][position]["user_id"])
    client = Client()
    client.force_login(actor)
    response = client.get(f"/table/{table.pk}/")
    text = response.content.decode()
    assert response.status_code == 200 and 'class="moves"' in text, "not the player's turn"
    return text, client


def _sizes(data: bytes) -> dict[str, int]:
    import brotli

    return {"raw": len(data), "gzip": len(gzip.compress(data, 9)), "brotli": len(brotli.compress(data))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "page_weight.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var_dir:
        _setup(var_dir)
        from django.contrib.staticfiles import finders

        html, _client = _turn_page()
        rows = {"HTML (your turn)": _sizes(html.encode())}
        for url in ASSET_RE.findall(html):
            path = finders.find(url.removeprefix("/static/").split("?")[0])
            rows[url.removeprefix("/static/")] = _sizes(Path(path).read_bytes())
    total = {k: sum(r[k] for r in rows.values()) for k in ("raw", "gzip", "brotli")}
    print(f"{'file':44} {'raw':>8} {'gzip':>8} {'brotli':>8}")
    for name, size in [*rows.items(), ("total", total)]:
        print(f"{name:44} {size['raw']:>8,} {size['gzip']:>8,} {size['brotli']:>8,}")
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps({"files": rows, "total": total}, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
