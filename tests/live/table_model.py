"""A model-based test of the live table (issue 30): a hypothesis state machine drives the real table
service (the store the settings choose, the real database and ledger, the real turn clock on a test
clock) with arbitrary interleavings of every command a player, the clock, staff or an operator can
give, and checks after every step what the room promises:

- every hand ends within a bounded number of clock steps, and no state waits for nobody;
- every viewer (each seat, a spectator, a newcomer in a freed seat) sees exactly the cards an
  independent reckoning from the document allows them;
- chips are conserved across wallets, seats and pots, and each seat's chips on the table equal its
  ledger account (between hands; during one, what the seat began it with);
- the table's seats in the store are the seat rows in the database;
- no seed series is revealed while one of its hands is in play;
- every stored hand replays with the engine to the result the site recorded, and verifies
  against its series' seed;
- no table frame for any viewer exceeds the socket's message limit.

The machine is used by tests/live/test_table_model.py (a fast run in ``make test``) and by
``python -m bench.table_model`` (a long run, through pytest, with figures).
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import itertools
import json
import os
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from accounts.services import seat_balance, wallet_balance
from accounts.services.responsible import set_loss_limit, set_play_time_limit, take_break
from bench.frames import hidden_cards_seen
from games.engine.hand import BETTING, DARK, JOIN, Hand
from games.engine.handfile import replay
from games.engine.verify import check_hand
from games.live import process, runtime, service, staff, testing
from games.live.clock import TurnClock
from games.live.entries import LINES
from games.live.store import get_state_store
from games.live.views import build_view, public_view
from games.models import PlayedHand, Seat, SeedSeries
from games.social.chat import ChatRefused, _flood_key, recent_messages, send_chat
from games.tables.socket_limits import SERVER_FRAME_BYTES
from games.tables.ui import chat as chat_ui
from games.tables.ui.frames import within_limit
from games.tables.ui.regions import frame, render_regions, shared_regions
from tests.live.tablekit import make_player, make_table
from tests.staff_roles import superuser

T = TypeVar("T")

# Clock steps a hand may take before it counts as stuck: each step times out one decision, and a
# hand of 4 has at most a dark round, a betting round and a few svara windows and replays.
MOST_TICKS_PER_HAND = 60
PLAYERS = 4
ALL_CARDS = [f"{rank}{suit}" for rank in ("7", "8", "9", "10", "J", "Q", "K", "A") for suit in "CDHS"]
MOVE_VERBS = ["dark", "decline", "fold", "pass", "call", "raise", "join", "skip", "timeout", "x"]
SIGNUP = 1_000
# The sit forms' action ids, random per render: the only text a render of the same view changes.
ACTION_IDS = re.compile(r"(?<=name=\"action_id\" value=\")[0-9a-f]+-")
# What Daphne is given (Makefile WS_MAX_MESSAGE, the deploy kit): no frame may exceed it.
FRAME_LIMIT = SERVER_FRAME_BYTES
_names = itertools.count(1)

# Figures for the long run's report (bench.table_model reads them from SVARA_MODEL_STATS).
STATS: Counter[str] = Counter()


class Clock:
    """The test's clock: commands and the turn clock read it; only ``tick`` moves it."""

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def run_machine_on_loop(loop: asyncio.AbstractEventLoop) -> Callable[[Awaitable[T]], T]:
    def run(coro: Awaitable[T]) -> T:
        return loop.run_until_complete(coro)  # type: ignore[arg-type]

    return run


class TableMachine(RuleBasedStateMachine):
    """One table and four accounts per example. ``loop`` and ``clock`` are set by the test."""

    loop: asyncio.AbstractEventLoop
    clock: Clock

    def __init__(self) -> None:
        super().__init__()
        self.run = run_machine_on_loop(self.loop)
        self.db = lambda fn, **kw: self.run(sync_to_async(fn)(**kw))
        self.table: Any = None
        self.users: list[Any] = []
        self.hand_ticks = 0
        self.hand_number: int | None = None
        self.checked_hands: set[int] = set()
        self.maybe_stacked: set[int] = set()  # hand numbers a stacked deck may have dealt
        self.closed = False
        self.chat_clock = timezone.now()

    # ------------------------------------------------------------------ set-up

    # Stake 10: buy-ins of 200 to 1,000 fit the 1,000-chip wallets of four accounts.
    @initialize(seats=st.integers(2, 4), dark_play=st.booleans(), stake=st.just(10))
    def open_table(self, seats: int, dark_play: bool, stake: int) -> None:
        tag = next(_names)
        self.table = self.db(
            make_table, seat_count=seats, dark_play=dark_play, stake=stake, name=f"model {tag}"
        )
        self.users = [self.db(make_player, name=f"m{tag}p{i}") for i in range(PLAYERS)]
        self.stake = stake
        STATS["examples"] += 1

    # ------------------------------------------------------------------ helpers

    def state(self):
        return self.run(service.load_table_state(self.table.pk))

    def refused(self, coro: Awaitable[Any]) -> bool:
        try:
            self.run(coro)
        except service.Refused as exc:
            STATS["refused"] += 1
            if os.environ.get("SVARA_MODEL_DEBUG"):
                STATS[f"refused: {str(exc)[:50]}"] += 1
            return True
        STATS["applied"] += 1
        return False

    def move(self, user: Any, verb: str, amount: int | None, *, tag: str) -> bool:
        """A move stamped with the version as it is now, as the page sends it; True if refused."""
        state = self.state()
        return self.refused(
            service.table_act(
                user=user,
                table_id=self.table.pk,
                verb=verb,
                amount=amount,
                client_version=state.version,
                action_id=f"{tag}-{state.version}",
                epoch=state.doc.get("epoch"),
            )
        )

    def hand(self, doc: dict[str, Any]) -> Hand | None:
        return Hand.from_json(doc["hand"]["state"]) if doc.get("hand") else None

    # ------------------------------------------------------------------ players' commands

    def sit(self, who: int, position: object, buy_in: object) -> None:
        STATS["sit"] += 1
        self.refused(
            service.table_sit(user=self.users[who], table_id=self.table.pk, position=position, buy_in=buy_in)
        )

    @rule(who=st.integers(0, PLAYERS - 1), buy_in=st.sampled_from([200, 300, 500]))
    def sit_well(self, who: int, buy_in: int) -> None:
        """A player takes a free seat with a buy-in that deals them in: what fills tables."""
        doc = self.state().doc
        free = [pos for pos, seat in enumerate(doc["seats"]) if seat is None]
        if not free or any(s and s["user_id"] == self.users[who].pk for s in doc["seats"]):
            return
        STATS["sit_well"] += 1
        self.refused(
            service.table_sit(user=self.users[who], table_id=self.table.pk, position=free[0], buy_in=buy_in)
        )

    @rule(who=st.integers(0, PLAYERS - 1))
    def leave(self, who: int) -> None:
        STATS["leave"] += 1
        self.refused(service.table_leave(user=self.users[who], table_id=self.table.pk))

    def sit_out(self, who: int, sitting_out: bool) -> None:
        STATS["sit_out"] += 1
        self.refused(
            service.table_sit_out(user=self.users[who], table_id=self.table.pk, sitting_out=sitting_out)
        )

    def add_chips(self, who: int, amount: object) -> None:
        STATS["add_chips"] += 1
        self.refused(service.table_add_chips(user=self.users[who], table_id=self.table.pk, amount=amount))

    def any_move(self, who: int, verb: str, amount: object, stale: int, replay_id: bool) -> None:
        """Any verb from anyone, right or wrong, fresh or stale, sometimes with a used action id."""
        STATS["any_move"] += 1
        state = self.state()
        self.refused(
            service.table_act(
                user=self.users[who],
                table_id=self.table.pk,
                verb=verb,
                amount=amount,
                client_version=state.version - stale,
                action_id="repeat" if replay_id else f"m{state.version}-{verb}-{amount}",
                epoch=state.doc.get("epoch"),
            )
        )

    @rule(choice=st.integers(0, 10_000), raise_to=st.floats(0, 1))
    def legal_move(self, choice: int, raise_to: float) -> None:
        """The player to act makes a legal move: what keeps hands going to their ends."""
        state = self.state()
        hand = self.hand(state.doc)
        if hand is None or hand.to_act is None or "svara" in state.doc["hand"]:
            return
        legal = hand.legal()
        assert legal is not None
        uid = state.doc["hand"]["players"][legal.seat]
        user = next((u for u in self.users if u.pk == uid), None)
        assert user is not None, "the player to act is not one of this table's"
        verb = legal.verbs[choice % len(legal.verbs)]
        STATS["join_window_moves"] += hand.phase == JOIN
        amount = None
        if verb == "raise" and legal.raise_range is not None:
            low, high = legal.raise_range
            amount = low + int((high - low) * raise_to)
        STATS[f"legal_{verb}"] += 1
        assert not self.move(user, verb, amount, tag="legal"), f"a legal {verb} was refused"

    @rule(moves=st.lists(st.tuples(st.integers(0, 10_000), st.floats(0, 1)), min_size=1, max_size=8))
    def play_on(self, moves: list[tuple[int, float]]) -> None:
        """Several steps of ordinary play: seats fill, the player to act moves, the clock runs.
        Without it, most of a run's steps would be refusals between hands."""
        STATS["play_on"] += 1
        for choice, fraction in moves:
            doc = self.state().doc
            seated = [s for s in doc["seats"] if s]
            wanted = 2 + choice % 3  # two to four players: join windows need a third
            if len(seated) < min(wanted, len(doc["seats"])) and not self.closed and not doc.get("hand"):
                self.sit_well(who=choice % PLAYERS, buy_in=200 + 100 * (choice % 4))
            elif doc.get("hand") and "svara" not in doc["hand"]:
                self.legal_move(choice=choice, raise_to=fraction)
            else:
                self.tick(jump=0.0)

    @rule(pick=st.integers(0, 10_000))
    def leave_at_the_worst_moment(self, pick: int) -> None:
        """Someone leaves when it hurts most: a tied player in a svara's join window or its pause,
        the player to act, a dark bettor; between hands, anyone seated."""
        doc = self.state().doc
        info = doc.get("hand")
        candidates: list[int] = [s["user_id"] for s in doc["seats"] if s]
        if info is not None:
            hand = Hand.from_json(info["state"])
            tied = [info["players"][s] for s in hand.tied]
            if "svara" in info:
                tied = [doc["seats"][p]["user_id"] for p in info["svara"]["tied"] if doc["seats"][p]]
            if tied:
                candidates = tied
            elif hand.to_act is not None:
                candidates = [info["players"][hand.to_act]]
        if not candidates:
            return
        uid = candidates[pick % len(candidates)]
        STATS["leave_worst"] += 1
        self.leave(who=next(i for i, u in enumerate(self.users) if u.pk == uid))

    @rule(pick=st.integers(0, 10_000))
    def play_to_a_svara(self, pick: int) -> None:
        """Stack a tie, deal it and play it to its join window: the two tied call, the others fold
        (up to 40 steps). Leaves, joins and timeouts in the window are the other rules' to make."""
        if self.closed:
            return
        self.stack_a_svara(deals=1 + pick % 2)
        for _ in range(40):
            doc = self.state().doc
            info = doc.get("hand")
            if info is None:
                if len([s for s in doc["seats"] if s and not s["sitting_out"]]) < 2:
                    return
                self.tick(jump=0.0)
                continue
            hand = Hand.from_json(info["state"])
            if hand.phase == JOIN or "svara" in info:
                STATS["driven_to_svara"] += 1
                return
            legal = hand.legal()
            if legal is None:
                self.tick(jump=0.0)
                continue
            tied_seats = hand._rotation[:2]  # the stacked tie: the two left of the dealer
            if legal.seat in tied_seats:
                verb = (
                    "call"
                    if "call" in legal.verbs
                    else ("dark" if "dark" in legal.verbs else legal.verbs[-1])
                )
                if verb == "raise":
                    verb = "fold" if "call" not in legal.verbs else "call"
            else:
                verb = (
                    "fold"
                    if "fold" in legal.verbs
                    else "decline"
                    if "decline" in legal.verbs
                    else legal.verbs[0]
                )
            uid = info["players"][legal.seat]
            self.move(next(u for u in self.users if u.pk == uid), verb, None, tag="svara")

    def stack_a_svara(self, deals: int) -> None:
        """The next hand's first ``deals`` deals tie the two players left of the dealer on 30 (the
        test hook): svaras, their join windows and the leaves in them, which random decks rarely give."""
        STATS["stacked"] += 1
        hands = (["10C", "10D", "10H"], ["QC", "QD", "QH"], ["8D", "9H", "7S"], ["8C", "9C", "JS"])
        # Dealt one card at a time round those dealt in: stacked for the players ready now (if
        # that changes before the deal, the deal is just not a tie).
        doc = self.state().doc
        count = max(2, sum(1 for seat in doc["seats"] if seat and not seat["sitting_out"]))
        tie = [hand[k] for k in range(3) for hand in hands[:count]]
        tie += [card for card in ALL_CARDS if card not in tie]  # a whole deck, whoever is dealt in
        number = self.db(lambda: type(self.table).objects.get(pk=self.table.pk).hands_started)
        self.maybe_stacked.update({number + 1, number + 2})
        self.run(testing.stack_decks(table_id=self.table.pk, decks=[tie] * deals))

    def client_seed(self, who: int, seed: str) -> None:
        STATS["client_seed"] += 1
        self.refused(
            service.table_set_client_seed(user=self.users[who], table_id=self.table.pk, client_seed=seed)
        )

    def chat(self, who: int, text: str, lines: int = 1) -> None:
        """``lines`` lines, 3 s apart on the chat's own clock (so a chatty table fills its last 50
        without the flood limit muting it)."""
        for _ in range(lines):
            STATS["chat"] += 1
            self.chat_clock += timedelta(seconds=3)
            uid = self.users[who].pk
            # Time passes for the flood limit too (its window is the cache's real-time expiry).
            self.db(
                lambda uid=uid: cache.delete_many([_flood_key(uid, "flood"), _flood_key(uid, "flood-muted")])
            )
            try:
                self.db(
                    send_chat, user=self.users[who], table_id=self.table.pk, text=text, now=self.chat_clock
                )
            except ChatRefused:
                STATS["chat_refused"] += 1

    # ------------------------------------------------------------------ the clock, staff, operators

    @rule(jump=st.sampled_from([0.0, 1.0, 30.0]))
    def tick(self, jump: float) -> None:
        """Time passes to the table's next deadline (and ``jump`` more), and the turn clock fires."""
        STATS["tick"] += 1
        state = self.state()
        timer = state.doc.get("timer")
        if timer:
            self.clock.at = max(self.clock.at, timer["at"]) + jump
        else:
            self.clock.at += jump
        clock = TurnClock(get_state_store(), runtime.handle_due, now=process.now)
        self.run(clock.tick())
        if self.state().doc.get("hand"):
            self.hand_ticks += 1

    def lose_the_store(self) -> None:
        """Redis flushed or restarted: the table is rebuilt from the database on first use."""
        STATS["store_lost"] += 1
        self.run(get_state_store().delete(service._key(self.table.pk)))

    def bad_record(self, *, text: str) -> None:
        """A hand-made edit or a bug leaves a record that is not a table's document: the table is
        quarantined and rebuilt from the database, its hand in play cancelled."""
        from tests.live.test_bad_records import write_bad_record

        STATS["bad_record"] += 1
        self.run(write_bad_record(self.table.pk, text))

    def stop_playing(self, *, who: int, how: str) -> None:
        """Responsible play's tools, taken mid-play: a time-out, a self-exclusion (every seat closed,
        chips back through the ledger), a loss limit, a daily play-time limit."""
        user = self.users[who]
        STATS[f"stop: {how}"] += 1
        if how in ("24h", "6months"):
            self.db(take_break, user=user, period=how)
        elif how.startswith("loss"):
            self.db(set_loss_limit, user=user, period="day", amount=int(how.split()[1]))
        else:
            self.db(set_play_time_limit, user=user, minutes=int(how.split()[1]))

    def series_runs_out(self) -> None:
        """A day passes for the seed series; a page asks about it (what reveals an idle one)."""
        STATS["series_expired"] += 1

        def age_and_ask() -> None:
            from games.live.series import reveal_if_expired

            open_ = SeedSeries.objects.filter(table=self.table, revealed_at__isnull=True).first()
            if open_ is None:
                return
            SeedSeries.objects.filter(pk=open_.pk).update(started_at=open_.started_at - timedelta(hours=25))
            open_.refresh_from_db()
            reveal_if_expired(open_)

        self.db(age_and_ask)

    def staff_close(self) -> None:
        if self.closed:
            return
        STATS["staff_close"] += 1
        boss = self.db(superuser)
        self.run(staff.table_close(table_id=self.table.pk, staff_user=boss, reason="model test"))
        self.closed = True

    # ------------------------------------------------------------------ the rules hypothesis picks

    # Fewer, broader rules: hypothesis picks among rules evenly (and switches some off per run), so
    # the commands that only poke at a table are drawn inside two rules, and ordinary play (a good
    # seat, a legal move, a run of play, the clock, a leave) keeps most of the steps.
    @rule(data=st.data())
    def a_player_pokes(self, data: st.DataObject) -> None:
        who = data.draw(st.integers(0, PLAYERS - 1))
        kind = data.draw(st.sampled_from(["sit", "sit_out", "add_chips", "any_move", "client_seed", "chat"]))
        if kind == "sit":
            self.sit(
                who=who,
                position=data.draw(st.one_of(st.integers(-1, 4), st.just("1"), st.none())),
                buy_in=data.draw(st.sampled_from([0, 199, 200, 500, 1_000, 1_001, -5, "x", 2.5])),
            )
        elif kind == "sit_out":
            self.sit_out(who=who, sitting_out=data.draw(st.booleans()))
        elif kind == "add_chips":
            self.add_chips(
                who=who, amount=data.draw(st.sampled_from([1, 10, 100, 300, 800, 5_000, 0, -1, "7"]))
            )
        elif kind == "any_move":
            self.any_move(
                who=who,
                verb=data.draw(st.sampled_from(MOVE_VERBS)),
                amount=data.draw(st.one_of(st.none(), st.integers(-10, 2_000), st.just("20"), st.just(1.5))),
                stale=data.draw(st.sampled_from([0, 0, 0, 1, 5])),
                replay_id=data.draw(st.booleans()),
            )
        elif kind == "client_seed":
            self.client_seed(who=who, seed=data.draw(st.sampled_from(["lucky", "", " ", "x" * 65, "семе 7"])))
        else:
            self.chat(
                who=who,
                text=data.draw(st.sampled_from(["gl", "хубава ръка", "ж" * 200, "<b>hi</b>", "<3 & «ok»"])),
                lines=data.draw(st.sampled_from([1, 1, 10, 25])),  # a chatty table too
            )

    @rule(data=st.data())
    def the_room_is_shaken(self, data: st.DataObject) -> None:
        kinds = ["svara", "svara", "svara", "store", "bad record", "series", "close", "stop playing"]
        kind = data.draw(st.sampled_from(kinds))
        if kind == "svara":
            self.stack_a_svara(deals=data.draw(st.integers(1, 3)))
        elif kind == "store":
            self.lose_the_store()
        elif kind == "bad record":
            self.bad_record(text=data.draw(st.sampled_from(["{", "[]", '{"table": {}}'])))
        elif kind == "stop playing":
            self.stop_playing(
                who=data.draw(st.integers(0, PLAYERS - 1)),
                how=data.draw(st.sampled_from(["24h", "6months", "loss 1", "loss 300", "play 1"])),
            )
        elif kind == "series":
            self.series_runs_out()
        elif data.draw(st.integers(0, 5)) == 0:  # rare: it ends the example's table
            self.staff_close()

    # ------------------------------------------------------------------ invariants

    @invariant()
    def nothing_waits_for_nobody(self) -> None:
        if self.table is None:
            return
        STATS["steps"] += 1  # invariants run once after every step
        doc = self.state().doc
        assert not doc.get("ended"), "an ended hand was left unsettled"
        info = doc.get("hand")
        if info is None:
            self.hand_number, self.hand_ticks = None, 0
            return
        if info["number"] != self.hand_number:
            self.hand_number, self.hand_ticks = info["number"], 0
        hand = Hand.from_json(info["state"])
        assert hand.phase in (DARK, BETTING, JOIN), f"a hand in play in phase {hand.phase}"
        STATS["seen_join_window"] += hand.phase == JOIN
        STATS["seen_svara_pause"] += "svara" in info
        timer = doc.get("timer")
        assert timer is not None, "a hand in play without a clock"
        if "svara" in info:
            assert timer["kind"] == "svara"
        else:
            assert hand.to_act is not None
            pos = info["positions"][hand.to_act]
            seat = doc["seats"][pos]
            assert seat is not None and seat["user_id"] == info["players"][hand.to_act], "waiting for nobody"
            assert timer["kind"] in ("turn", "bot")
        assert self.hand_ticks <= MOST_TICKS_PER_HAND, f"hand {info['number']} did not end"

    @invariant()
    def the_log_keeps_what_happened_not_sentences(self) -> None:
        """Every line is an event this build words (entries.LINES), and a hand that ended says
        who won its pot (or that its svara was called off) with the pot its result shows."""
        if self.table is None:
            return
        doc = self.state().doc
        for line in doc["log"]:
            assert isinstance(line, dict) and "msg" not in line and line.get("e") in LINES, line
        last = doc.get("last")
        if last and last["number"] != getattr(self, "told_hand", None):
            self.told_hand = last["number"]
            told = [line for line in doc["log"] if line["e"] in ("won", "called_off")]
            assert told and told[-1]["pot"] == last["pot"], (told, last)
            STATS["results_told"] += 1

    @invariant()
    def each_viewer_sees_only_what_they_may(self) -> None:
        if self.table is None:
            return
        state = self.state()
        doc = state.doc
        lines = self.db(lambda: recent_messages(table_id=self.table.pk, ignored=frozenset()))
        # The part of every frame the sockets share is rendered from the public view: a spectator's.
        assert public_view(doc, version=state.version).data == build_view(
            doc, user_id=None, version=state.version
        )
        for viewer in [*(u.pk for u in self.users), None]:
            view = build_view(doc, user_id=viewer, version=state.version)
            for seat in view["seats"]:
                if seat["empty"]:
                    continue
                expected = allowed_cards(doc, viewer=viewer, pos=seat["position"])
                got = seat["cards"]
                assert (list(got) if got else None) == expected, (
                    f"viewer {viewer} sees {got} at seat {seat['position']}, may see {expected}"
                )
            # What a new socket of this viewer is sent: the table and the chat's last 50 lines, cut
            # as the consumer cuts them (games/tables/ui/frames.py); each part under the limit.
            table_html = render_regions(view=view, action_id="m")
            # The socket's frame: the process's shared part of this version (rendered once for
            # every socket, from the public view) with this viewer's own parts spliced in: the same
            # text as the page's render for them; for a spectator, the shared part is all of it
            # but the moves region. And the shared part shows no card a spectator may not see.
            shared = shared_regions(
                table_id=self.table.pk, doc=doc, version=state.version, seated=view["seated"]
            )
            assert hidden_cards_seen(shared.spectators()) == [], hidden_cards_seen(shared.spectators())
            spliced = ACTION_IDS.sub("m-", frame(shared=shared, view=view, action_id="m"))
            diff = difflib.unified_diff(table_html.splitlines(), spliced.splitlines(), lineterm="")
            assert spliced == table_html, f"viewer {viewer}: the spliced frame differs:\n" + "\n".join(diff)
            # The drill's check of a frame, on every frame the model renders (the svara banner too).
            assert hidden_cards_seen(table_html) == [], (viewer, hidden_cards_seen(table_html))
            whole = table_html + chat_ui.all_lines_frame(lines, reader_id=viewer)
            STATS["largest_first_frame_whole"] = max(STATS["largest_first_frame_whole"], len(whole.encode()))
            for part in within_limit(whole):
                size = len(part.encode())
                STATS["largest_frame"] = max(STATS["largest_frame"], size)
                assert size <= FRAME_LIMIT, f"a frame of {size} bytes"

    @invariant()
    def chips_are_conserved_and_seats_match_the_ledger(self) -> None:
        if self.table is None:
            return
        doc = self.state().doc
        table_id = self.table.pk

        def read() -> tuple[list[int], list[int], set[tuple[int, int]]]:
            wallets = [wallet_balance(user=u) for u in self.users]
            seats = [seat_balance(user=u, table_id=table_id) for u in self.users]
            rows = set(Seat.objects.filter(table_id=table_id).values_list("position", "user_id"))
            return wallets, seats, rows

        wallets, seats, rows = self.db(read)
        assert sum(wallets) + sum(seats) == SIGNUP * len(self.users), "chips were made or lost"
        occupants = {(pos, s["user_id"]) for pos, s in enumerate(doc["seats"]) if s}
        assert occupants == rows, f"the store seats {occupants}, the database {rows}"
        by_user = dict(zip((u.pk for u in self.users), seats, strict=True))
        info = doc.get("hand")
        hand = self.hand(doc)
        for pos, seat in enumerate(doc["seats"]):
            if seat is None:
                continue
            uid = seat["user_id"]
            added = seat.get("added", 0)  # chips added during the seat's hand: in the ledger already
            if hand is not None and uid in info["players"]:
                began = hand.starting_chips[info["players"].index(uid)]
                assert began + added == by_user[uid], (
                    f"seat {pos} began the hand with {began} (+{added} added), ledger {by_user[uid]}"
                )
            else:
                assert added == 0, f"seat {pos} keeps {added} added chips between hands"
                assert seat["chips"] == by_user[uid], (
                    f"seat {pos} holds {seat['chips']}, ledger {by_user[uid]}"
                )

    @invariant()
    def no_seed_is_revealed_under_a_hand_in_play(self) -> None:
        if self.table is None:
            return
        leaked = self.db(
            lambda: list(
                PlayedHand.objects.filter(
                    table=self.table, status=PlayedHand.Status.IN_PLAY, series__revealed_at__isnull=False
                ).values_list("number", flat=True)
            )
        )
        assert leaked == [], f"hands {leaked} are in play in a revealed series"

    @invariant()
    def stored_hands_replay_and_verify(self) -> None:
        if self.table is None:
            return
        done = self.db(
            lambda: list(
                PlayedHand.objects.filter(table=self.table, status=PlayedHand.Status.FINISHED)
                .exclude(pk__in=self.checked_hands)
                .select_related("series")
            )
        )
        for played in done:
            record = dict(played.record)
            seed = played.series.server_seed if played.series else played.server_seed
            record["server_seed"] = seed  # what the file holds once its series is revealed
            problems = check_hand(record, server_seed=seed, server_seed_hash=played.server_seed_hash)
            if played.number in self.maybe_stacked:
                # A stacked deck is not the seeds' (the test hook's): its replay must still hold.
                problems = (
                    [] if replay(record) == record["result"] else ["its replay differs from its result"]
                )
            assert problems == [], problems
            self.checked_hands.add(played.pk)
            STATS["hands_checked"] += 1
            STATS["hands_called_off"] += played.winner_id is None
            STATS["hands_with_svara"] += bool(record.get("result", {}).get("svaras"))

    def teardown(self) -> None:
        if self.table is None:
            return
        # Everyone leaves; the clock runs the hand in play to its end; every chip is back in a wallet.
        for user in self.users:
            with contextlib.suppress(service.Refused):
                self.run(service.table_leave(user=user, table_id=self.table.pk))
        for _ in range(MOST_TICKS_PER_HAND):
            doc = self.state().doc
            if not doc.get("hand") and not any(doc["seats"]):
                break
            self.tick(jump=0.0)
        doc = self.state().doc
        assert not doc.get("hand") and not any(doc["seats"]), "the table did not empty"
        wallets = self.db(lambda: [wallet_balance(user=u) for u in self.users])
        assert sum(wallets) == SIGNUP * len(self.users)
        self.db(lambda: call_command("audit_chips"))  # raises SystemExit on a mismatch


def allowed_cards(doc: dict[str, Any], *, viewer: int | None, pos: int) -> list[int] | None:
    """What the viewer may see at a seat, reckoned from the document alone (RULES.md, views.py's
    promise): own cards; hands shown at a showdown of the current deal; during a svara's pause the
    tied showdown; after a hand, the hands shown at its showdown and one's own, and only at a seat
    its player of that hand still holds. Folded hands, decks and undealt cards never."""
    seat = doc["seats"][pos]
    info = doc.get("hand")
    if info is not None:
        pause = info.get("svara")
        if pause is not None:
            shown = pause["shown"].get(str(pos))
            return list(shown[1]) if shown else None
        if pos not in info["positions"]:
            return None
        index = info["positions"].index(pos)
        if seat["user_id"] != info["players"][index]:
            return None
        hand = Hand.from_json(info["state"])
        cards = hand.cards[index]
        if not cards:
            return None
        if viewer == info["players"][index] or index in hand.points:
            return list(cards)
        return None
    last = doc.get("last")
    if last is None or last.get("players", {}).get(str(pos)) != seat["user_id"]:
        return None
    if str(pos) in last["cards"]:
        return list(last["cards"][str(pos)])
    if viewer == seat["user_id"] and str(pos) in last.get("dealt", {}):
        return list(last["dealt"][str(pos)])
    return None


def write_stats() -> None:
    """The long run's figures, for bench.table_model."""
    path = os.environ.get("SVARA_MODEL_STATS")
    if path:
        with open(path, "w") as out:
            json.dump(dict(STATS), out, indent=1, sort_keys=True)
