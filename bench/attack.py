"""The attack drill of issue 37, rerun against a live room: two Daphne processes on 127.0.0.1 with
their own PostgreSQL database and Redis prefix, started and stopped by the drill itself.

Each probe counts what it tried and what the room refused; ``let_through`` lists what got past.

- **sockets**: one account opens 30 table sockets over both processes (the limit per account
  holds across them); a second account then opens 12 from the same address (the limit per address).
- **chat**: the 50 spellings of two filtered words (``EVASIONS``) said at a table over real sockets,
  then read back as stored: each must be masked.
- **password**: the help desk (view rights and "change user") posts a new password for a player;
  the player's password must not change.
- **ban**: a banned player's session asks for the lobby; the first answer must be the ban's page.
- **spoofed address**: 15 failed log-ins straight to a serving process, each with another
  ``X-Forwarded-For`` (the drill plays a client that reached Daphne directly, not through the proxy);
  the per-address limit (10 a minute) must refuse the rest.

    python -m bench.attack [--database-url URL] [--redis-url URL] [--out bench/results/attack.json]
"""

# ruff: noqa: RUF001  (the spellings are the point)
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import websockets

from bench import harness

# The spellings the filter must mask: "badword" and "глупак" (the staff's words in the drill).
FILTERED = ("badword", "глупак")
ZW = "\u200b"
EVASIONS = [
    "badword", "BADWORD", "BaDwOrD", "bad\u200bword", "bad\u200cword", "bad\u200dword", "bad\u2060word",
    "bad\ufeffword", "bad\u00adword", "ＢＡＤＷＯＲＤ", "ｂａｄｗｏｒｄ", "𝐛𝐚𝐝𝐰𝐨𝐫𝐝", "𝘣𝘢𝘥𝘸𝘰𝘳𝘥",
    "𝔟𝔞𝔡𝔴𝔬𝔯𝔡", "ⓑⓐⓓⓦⓞⓡⓓ", "bädwörd", "bàdwórd", "ba\u0308dwo\u0301rd", "b@dword", "b4dword",
    "badw0rd", "b@dw0rd", "b a d w o r d", "B A D W O R D", "b.a.d.w.o.r.d", "b-a-d-w-o-r-d",
    "b_a_d_w_o_r_d", "b*a*d*w*o*r*d", "b/a/d/w/o/r/d", "bad-word", "bad.word", "baaadword",
    "badwooord", "b\u0430dw\u043erd", f"b{ZW}a{ZW}d{ZW}w{ZW}o{ZW}r{ZW}d",
    "глупак", "ГЛУПАК", "ГлУпАк", "глу\u200bпак", "глу\u00adпак", "г л у п а к", "г.л.у.п.а.к",
    "г-л-у-п-а-к", "глуп@к", "глупaк", "глyпaк", "глупáк", "глупа\u0301к", "глууупак", "гЛУПАК",
]  # fmt: skip
LINES_PER_SPEAKER = 5  # the chat's flood limit mutes at the sixth line in 10 s
PER_USER, PER_ADDRESS = 12, 20
TOO_MANY = 4429
NEW_PASSWORD = "Taken-over-1"
# A network no test machine connects from: the drill's own connections are not the proxy's.
NOT_OUR_PROXY = "192.0.2.0/24"


@dataclass
class Probe:
    tried: int = 0
    refused: int = 0
    let_through: list[str] = field(default_factory=list)

    def count(self, refused: bool, what: str) -> None:
        self.tried += 1
        if refused:
            self.refused += 1
        else:
            self.let_through.append(what)


# ---------------------------------------------------------------- inside Django (a subprocess)


def _cmd_seed(speakers: int) -> dict[str, Any]:
    from django.contrib.auth.models import Group, Permission

    from accounts.models import User
    from games.models import ChatMode, ChatWord, Table

    names = ["mal", "eve", "ben", "victim", "help", *(f"talk{i}" for i in range(speakers))]
    seeded = harness._cmd_seed(names, [{"name": "drill", "chat": ChatMode.EVERYONE}])
    for word in FILTERED:
        ChatWord.objects.create(word=word)
    victim = User.objects.get(username="victim")
    victim.set_password("the-victims-own-1")
    victim.save()
    room = Permission.objects.filter(content_type__app_label__in=("accounts", "games"))
    group = Group.objects.create(name="help desk")
    group.permissions.set([*room.filter(codename__startswith="view_"), room.get(codename="change_user")])
    helper = User.objects.get(username="help")
    helper.is_staff = True
    helper.save()
    helper.groups.add(group)
    Table.objects.filter(pk__in=seeded["tables"]).update(chat=ChatMode.EVERYONE)
    return seeded


def _cmd_ban(user: int) -> dict[str, Any]:
    from accounts.models import User
    from accounts.services import ban_user

    boss, _ = User.objects.get_or_create(
        username="drill-boss", defaults={"is_staff": True, "is_superuser": True}
    )
    ban_user(user=User.objects.get(pk=user), reason="the attack drill", staff_user=boss)
    return {"banned": user}


def _cmd_after(victim: int) -> dict[str, Any]:
    from accounts.models import StaffAction, User
    from games.models import ChatMessage

    return {
        "lines": list(ChatMessage.objects.order_by("pk").values_list("text", flat=True)),
        "password_taken": User.objects.get(pk=victim).check_password(NEW_PASSWORD),
        "staff_log": list(StaffAction.objects.values_list("kind", flat=True)),
    }


COMMANDS = {"seed": _cmd_seed, "ban": _cmd_ban, "after": _cmd_after}


def inside(env: dict[str, str], command: str, **kwargs: Any) -> Any:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "bench.attack", "--inside", command, json.dumps(kwargs)],
        env=env,
        cwd=harness.ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the probes


async def _open(server: harness.Daphne, table: int, cookie: str) -> tuple[Any, int | None]:
    """A table socket that got its first frame, or the close code it was refused with."""
    ws = await websockets.connect(
        f"{server.ws_base}/ws/table/{table}/",
        origin=server.origin,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie},
        proxy=None,
        open_timeout=10,
        max_queue=None,
    )
    try:
        await asyncio.wait_for(ws.recv(), timeout=10)
    except websockets.ConnectionClosed as closed:
        return None, closed.rcvd.code if closed.rcvd else None
    return ws, None


async def probe_sockets(servers: list[harness.Daphne], table: int, users: dict[str, Any]) -> Probe:
    probe, held = Probe(), []
    try:
        for name, tries, allowed in (("mal", 30, PER_USER), ("eve", PER_USER, PER_ADDRESS - PER_USER)):
            for n in range(tries):
                ws, code = await _open(servers[n % len(servers)], table, users[name]["cookie"])
                if ws is not None:
                    held.append(ws)
                if n >= allowed:  # past the limit: an attack, which must be refused with 4429
                    probe.count(ws is None and code == TOO_MANY, f"{name}'s socket {n + 1} ({code})")
                elif ws is None:
                    raise RuntimeError(f"{name}'s socket {n + 1} within the limit was refused ({code})")
    finally:
        for ws in held:
            with contextlib.suppress(Exception):
                await ws.close()
    return probe


async def probe_chat(
    servers: list[harness.Daphne], table: int, users: dict[str, Any], env: dict[str, str]
) -> Probe:
    speakers = [users[f"talk{i}"] for i in range(-(-len(EVASIONS) // LINES_PER_SPEAKER))]
    for i, speaker in enumerate(speakers):
        ws, code = await _open(servers[i % len(servers)], table, speaker["cookie"])
        if ws is None:
            raise RuntimeError(f"a speaker's socket was refused ({code})")
        async with ws:
            for text in EVASIONS[i * LINES_PER_SPEAKER : (i + 1) * LINES_PER_SPEAKER]:
                await ws.send(json.dumps({"verb": "chat", "text": f"you {text}!"}))
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
    lines = inside(env, "after", victim=users["victim"]["id"])["lines"]
    probe = Probe()
    for text in EVASIONS:
        said = f"you {text}!"
        masked = f"you {'*' * len(text)}!"
        probe.count(masked in lines and said not in lines, repr(text))
    return probe


def _request(
    server: harness.Daphne, path: str, *, cookie: str = "", data: dict[str, str] | None = None, **headers: str
) -> tuple[int, str, str]:
    """(status, body, Set-Cookie) of one request; redirects are not followed."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    body = None if data is None else urllib.parse.urlencode(data).encode()
    request = urllib.request.Request(f"{server.origin}{path}", data=body, method="POST" if data else "GET")
    for name, value in {"Cookie": cookie, **headers}.items():
        if value:
            request.add_header(name.replace("_", "-"), value)
    opener = urllib.request.build_opener(Stay)
    try:
        with opener.open(request, timeout=15) as answer:
            return answer.status, answer.read().decode(errors="replace"), answer.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace"), error.headers.get("Set-Cookie", "")


def _csrf(server: harness.Daphne, path: str, cookie: str = "") -> str:
    _status, _body, set_cookie = _request(server, path, cookie=cookie)
    jar = SimpleCookie()
    jar.load(set_cookie)
    if "csrftoken" not in jar:
        raise RuntimeError(f"no CSRF cookie from {path}")
    return jar["csrftoken"].value


def probe_password(server: harness.Daphne, users: dict[str, Any], env: dict[str, str]) -> Probe:
    helper = users["help"]["cookie"]
    token = _csrf(server, "/admin/", helper)
    cookie = f"{helper}; csrftoken={token}"
    data = {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "set_usable_password": "true"}
    status, _body, _ = _request(
        server,
        f"/admin/accounts/user/{users['victim']['id']}/password/",
        cookie=cookie,
        data=data,
        X_CSRFToken=token,
    )
    taken = inside(env, "after", victim=users["victim"]["id"])["password_taken"]
    probe = Probe()
    probe.count(not taken and status in (403, 404), f"the help desk set a player's password ({status})")
    return probe


def probe_ban(server: harness.Daphne, users: dict[str, Any], env: dict[str, str]) -> Probe:
    ben = users["ben"]["cookie"]
    assert _request(server, "/lobby/", cookie=ben)[0] == 200
    inside(env, "ban", user=users["ben"]["id"])
    status, body, _ = _request(server, "/lobby/", cookie=ben)
    probe = Probe()
    probe.count(status == 403 and "the attack drill" in body, f"the banned player's lobby ({status})")
    return probe


def probe_spoofed_address(server: harness.Daphne, tries: int = 15, allowed: int = 10) -> Probe:
    token = _csrf(server, "/accounts/login/")
    probe = Probe()
    for n in range(tries):
        status, _body, _ = _request(
            server,
            "/accounts/login/",
            cookie=f"csrftoken={token}",
            # Another name each time: the limit per account (5 in 5 minutes) is not the one tried here.
            data={"login": f"nobody{n}", "password": "wrong-password-1", "csrfmiddlewaretoken": token},
            X_Forwarded_For=f"198.51.100.{n + 1}",
        )
        if n >= allowed:
            blocked = status == 429 or "Too many failed login attempts" in _body
            probe.count(blocked, f"failed log-in {n + 1} with a spoofed address ({status})")
    return probe


# ---------------------------------------------------------------- the run


async def attack(
    servers: list[harness.Daphne], seeded: dict[str, Any], env: dict[str, str]
) -> dict[str, Probe]:
    table, users = seeded["tables"][0], seeded["users"]
    probes = {"sockets": await probe_sockets(servers, table, users)}
    probes["chat"] = await probe_chat(servers, table, users, env)
    loop = asyncio.get_running_loop()
    probes["password"] = await loop.run_in_executor(None, probe_password, servers[0], users, env)
    probes["ban"] = await loop.run_in_executor(None, probe_ban, servers[1], users, env)
    probes["spoofed address"] = await loop.run_in_executor(None, probe_spoofed_address, servers[0])
    return probes


def run(*, database_url: str, redis_url: str, log_dir: Path) -> dict[str, Any]:
    prefix = f"svara:attack:{uuid.uuid4().hex[:8]}:"

    def env_for(url: str) -> dict[str, str]:
        return harness.server_env(
            database_url=url,
            redis_url=redis_url,
            prefix=prefix,
            SOCKETS_PER_USER=str(PER_USER),
            SOCKETS_PER_ADDRESS=str(PER_ADDRESS),
            TRUSTED_PROXIES="1",
            TRUSTED_PROXY_NETWORKS=NOT_OUR_PROXY,
        )

    started = time.monotonic()
    with harness.dedicated_database(database_url, stem="svara_bench_attack", env_for=env_for) as url:
        env = env_for(url)
        seeded = inside(env, "seed", speakers=-(-len(EVASIONS) // LINES_PER_SPEAKER))
        with harness.servers(2, env=env, log_dir=log_dir) as servers:
            probes = asyncio.run(attack(servers, seeded, env))
    result = {
        "probes": {name: vars(probe) for name, probe in probes.items()},
        "tried": sum(p.tried for p in probes.values()),
        "refused": sum(p.refused for p in probes.values()),
        "let_through": [f"{name}: {what}" for name, p in probes.items() for what in p.let_through],
        "seconds": round(time.monotonic() - started, 1),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svara_site.test_settings")
        django.setup()
        print(json.dumps(COMMANDS[argv[1]](**json.loads(argv[2]))))
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/svara"
    )
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/8")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="svara-attack-") as logs:
        result = run(database_url=args.database_url, redis_url=args.redis_url, log_dir=Path(logs))
    for name, probe in result["probes"].items():
        print(f"{name:16} tried {probe['tried']:3}  refused {probe['refused']:3}")
    print(f"{'all':16} tried {result['tried']:3}  refused {result['refused']:3}  ({result['seconds']} s)")
    for what in result["let_through"]:
        print(f"let through: {what}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if not result["let_through"] else 1


if __name__ == "__main__":
    sys.exit(main())
