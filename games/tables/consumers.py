"""The table's socket (and the ping that checks a socket gets through): thin. Authenticate, parse,
call the table service, render.

Messages in are what the htmx WebSocket extension sends for a form: a JSON object of the form's
fields plus ``HEADERS``. Messages out are HTML: every region of the table as an out-of-band
swap, built from the view for this socket's viewer and stamped with the table version.

Language: each socket picks its viewer's at connect (sockets.py) and reads every message and
renders every fragment inside ``translation.override`` of it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from typing import Any, Final

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.utils import timezone, translation
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.ledger.errors import LedgerError
from accounts.services.responsible import take_time_out
from games.engine.hand import PLAYER_VERBS
from games.live import announced, ejection, metrics, practice, presence, runtime, service, socket_counts
from games.live.store import StateError
from games.live.views import build_view
from games.social import chat, ignores
from games.tables import care, socket_limits
from games.tables.access import may_view_table
from games.tables.dispatch import DirectDispatch
from games.tables.sockets import language_from_scope
from games.tables.ui import chat as chat_ui
from games.tables.ui import regions
from games.tables.ui.announce import announcement
from games.tables.ui.frames import within_limit

log = logging.getLogger(__name__)

MOVES = frozenset(PLAYER_VERBS)
# carecontinue, carebreak: the answers to the reality check at the table (games/tables/care.py).
COMMANDS = MOVES | {
    "sit",
    "leave",
    "add",
    "sitout",
    "comeback",
    "seed",
    "sync",
    "newgame",
    "chat",
    "carecontinue",
    "carebreak",
}
MAX_MESSAGE = socket_limits.MAX_MESSAGE


class PingConsumer(DirectDispatch, AsyncJsonWebsocketConsumer):
    """A connectivity check for the page: answers every message with the viewer's name.

    It proves the socket went through the origin check and the session middleware.
    """

    async def connect(self) -> None:
        await self.accept()

    async def receive_json(self, content: object, **kwargs: object) -> None:
        user = self.scope.get("user")
        name = user.get_username() if user is not None and user.is_authenticated else None
        await self.send_json({"pong": True, "user": name})


# The table sockets open in this process, by table: a frame's shared part is rendered once for
# all of them when there are more than two (measured: with two players and no one watching, the
# shared part and two players' own parts, their seats and moves, cost more than two whole frames).
_sockets_here: collections.Counter[int] = collections.Counter()
SHARED_FROM: Final = 3

# Every table command still running in this process, whichever socket sent it.
_in_flight: set[asyncio.Task] = set()


async def drain_commands(*, timeout: float = 10.0) -> None:
    """Wait for the table commands in flight on this loop, whose settlement may outlive their
    socket: the tests do before their database is flushed."""
    loop = asyncio.get_running_loop()
    mine = [task for task in _in_flight if task.get_loop() is loop]
    if not mine:
        return  # nothing was sent on this loop: no database work to wait for (a test may have none)
    await asyncio.wait(mine, timeout=timeout)
    # Work they queued on the database thread, and anything queued before it, is done after this.
    await database_sync_to_async(lambda: None)()


class TableConsumer(DirectDispatch, AsyncWebsocketConsumer):
    """One socket for one viewer (player or spectator) of one table."""

    shown: tuple[str | None, int] | None = None  # (epoch, version) of the last state sent
    counted = False  # counted in _sockets_here
    closed = False  # the socket is gone (or being closed): nothing more is run or sent for it
    said: dict[str, Any] | None = None  # the view last sent, which the next frame's announcement follows
    # The players whose chat this socket's reader ignores: read at connect, again on a change.
    ignoring: frozenset[int] = frozenset()
    # The reality check and play-time warnings of this socket's player (care.py), read at connect.
    care_state: care.TableCare | None = None
    care_wake: asyncio.TimerHandle | None = None

    async def connect(self) -> None:
        self.commands: set[asyncio.Task] = set()
        self.command_lock = asyncio.Lock()
        self.budget = socket_limits.table_budget()
        self.user = self.scope.get("user")
        self.language = language_from_scope(self.scope)
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = service.group_name(self.table_id)
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=4401)
            return
        # Private tables: the same rule as the page (invite, creator or player); a table the
        # user may not see is refused exactly like a missing one.
        allowed = await database_sync_to_async(may_view_table)(
            user=self.user, table_id=self.table_id, session=self.scope.get("session")
        )
        if not allowed:
            await self.close(code=4404)
            return
        try:
            await service.load_table_state(self.table_id)
        except service.Refused:
            await self.close(code=4404)
            return
        # Each socket renders its own view on every change: an account's or an address's sockets
        # are limited in all processes together, so one player cannot multiply a flood's cost.
        client = self.scope.get("client") or (None,)
        too_many = await socket_counts.claim(
            socket_id=self.channel_name, user_id=self.user.pk, address=client[0]
        )
        if too_many is not None:
            log.warning(
                "table %s: socket of user %s refused, over the %s limit of %s",
                self.table_id,
                self.user.pk,
                too_many.over,
                too_many.limit,
            )
            # Accepted, then closed: a socket closed before it is accepted reaches the page as a
            # failed handshake (1006), after which the page would reconnect at once, forever.
            self.closed = True
            await self.accept()
            await self.close(
                code=socket_limits.TOO_MANY_SOCKETS, reason=socket_limits.too_many_reason(too_many)
            )
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(ejection.user_group(self.user.pk), self.channel_name)
        await self.accept()
        self.counted = True
        _sockets_here[self.table_id] += 1
        await presence.socket_opened(
            socket_id=self.channel_name, user_id=self.user.pk, table_id=self.table_id
        )
        runtime.ensure_clock()
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        facts = await database_sync_to_async(care.read_facts)(
            user_id=self.user.pk, session_key=self.session_key
        )
        self.care_state = care.TableCare(facts=facts)
        # The chat as it is now, after the table (a reconnecting page missed the lines said while
        # it was away): in the same frame when both fit, else in frames of its own (``send``).
        await self.send_table(extra=await self.chat_lines_frame())

    async def disconnect(self, code: int) -> None:
        # Commands still queued behind the lock see this and do nothing; the one running finishes
        # (it may be half-way between the database and the store) but sends nothing.
        self.closed = True
        if self.care_wake is not None:
            self.care_wake.cancel()
        if self.counted:
            self.counted = False
            _sockets_here[self.table_id] -= 1
            if _sockets_here[self.table_id] <= 0:
                del _sockets_here[self.table_id]
        await presence.socket_closed(socket_id=self.channel_name)
        await socket_counts.release(socket_id=self.channel_name)
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.channel_layer.group_discard(ejection.user_group(self.user.pk), self.channel_name)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if self.closed:
            return
        if text_data is None:
            await super().send(bytes_data=bytes_data, close=close)
            return
        # Every frame within the socket's limit: Daphne would close the socket (1011) on one over it.
        frames = within_limit(text_data)
        for index, frame in enumerate(frames, start=1):
            await super().send(text_data=frame, close=close if index == len(frames) else False)

    # ------------------------------------------------------------ in

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closed:
            return
        if not self.budget.take() or len(self.commands) >= socket_limits.MAX_COMMANDS_IN_FLIGHT:
            await self._close_for_flooding()
            return
        # A command may wait on the database (a hand it ends is settled at once): run it beside
        # the consumer's message loop, so this socket keeps getting the table's updates meanwhile.
        # The lock keeps one socket's commands in the order they came.
        self._spawn(self._command(text_data))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.commands.add(task)
        task.add_done_callback(self.commands.discard)
        _in_flight.add(task)
        task.add_done_callback(_in_flight.discard)

    async def _close_for_flooding(self) -> None:
        log.warning(
            "table %s: socket of user %s closed, over its message budget", self.table_id, self.user.pk
        )
        metrics.REFUSED.labels(reason="flood").inc()
        self.closed = True
        await self.close(code=socket_limits.POLICY_VIOLATION)

    async def _command(self, text_data: str | None) -> None:
        async with self.command_lock:
            if not self.closed:
                await self._run_command(text_data)

    async def _run_command(self, text_data: str | None) -> None:
        # The whole command in the viewer's language: refusals are worded where they are raised,
        # in the service and in the database layer it calls (sync_to_async keeps the context).
        with translation.override(self.language):
            try:
                message = self._parse(text_data)
                await self._dispatch(message)
            except service.Refused as exc:
                metrics.REFUSED.labels(reason="refused").inc()
                await self.send_table(error=str(exc))
            except StateError:
                log.exception("state store error on table %s", self.table_id)
                await self.send_table(error=_("the table is busy; please try again"))

    def _parse(self, text: str | None) -> dict[str, Any]:
        if text is None or len(text) > MAX_MESSAGE:
            raise service.Refused(_("that message could not be read"))
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            raise service.Refused(_("that message could not be read (not JSON)")) from None
        if not isinstance(message, dict):
            raise service.Refused(_("that message could not be read (not a form)"))
        verb = message.get("verb")
        if not isinstance(verb, str) or verb not in COMMANDS:
            raise service.Refused(_("unknown command %(verb)s") % {"verb": repr(str(verb)[:20])})
        table = message.get("table")
        if table not in (None, "", self.table_id, str(self.table_id)):
            raise service.Refused(_("that command was for another table"))
        return message

    async def _dispatch(self, m: dict[str, Any]) -> None:
        verb, user, tid = m["verb"], self.user, self.table_id
        if verb == "chat":
            await self._chat(m)
        elif verb == "sync":
            await self.send_table()
        elif verb in MOVES:
            state = await service.table_act(
                user=user,
                table_id=tid,
                verb=verb,
                amount=m.get("amount"),
                client_version=m.get("version"),
                action_id=m.get("action_id"),
                # Every page sends the epoch it shows; whatever else comes (none, [], 0) is checked
                # like any other and refused, never skipped.
                epoch=m.get("epoch", ""),
            )
            if self.shown is not None and self.shown == (state.doc.get("epoch"), state.version):
                # Nothing changed (a move repeated by its action id): no broadcast will come, so
                # the sender gets its answer here.
                await self.send_table()
        elif verb == "sit":
            await service.table_sit(
                user=user, table_id=tid, position=m.get("position"), buy_in=m.get("buy_in")
            )
        elif verb == "leave":
            await service.table_leave(user=user, table_id=tid)
        elif verb == "add":
            await service.table_add_chips(user=user, table_id=tid, amount=m.get("amount"))
        elif verb in ("sitout", "comeback"):
            await service.table_sit_out(user=user, table_id=tid, sitting_out=verb == "sitout")
        elif verb == "seed":
            await service.table_set_client_seed(user=user, table_id=tid, client_seed=m.get("client_seed"))
        elif verb == "newgame":
            await practice.practice_new_game(user=user, table_id=tid)
        elif verb == "carecontinue":
            await self._care_continue()
        elif verb == "carebreak":
            try:
                # The time-out closes the room: its signal takes the player off every table and
                # closes this socket with a line saying why (games/live/ejection.py).
                await database_sync_to_async(take_time_out)(user=user, period=m.get("period"))
            except LedgerError as exc:
                raise service.Refused(str(exc)) from None

    async def _chat(self, m: dict[str, Any]) -> None:
        """A chat line: a refusal answers this socket only; a stored line is announced to the
        table's group, whose sockets each word it for their own reader."""
        try:
            line = await database_sync_to_async(chat.send_chat)(
                user=self.user, table_id=self.table_id, text=m.get("text"), phrase=m.get("phrase")
            )
        except chat.ChatRefused as exc:
            await self.send(text_data=chat_ui.notice_frame(str(exc)))
            return
        await self.send(text_data=chat_ui.notice_frame(None))
        await self.channel_layer.group_send(self.group, line.event())

    async def chat_message(self, event: dict[str, Any]) -> None:
        """A line said at this table (the event carries it: no database read per reader)."""
        line = chat.ChatLine.from_event(event)
        if line.user_id in self.ignoring:
            return
        with translation.override(self.language):
            html = chat_ui.added_frame(line, reader_id=self.user.pk)
        await self.send(text_data=html)

    async def chat_deleted(self, event: dict[str, Any]) -> None:
        """The staff deleted a line (games.social's moderation, after its commit): gone live."""
        await self.send(text_data=chat_ui.deleted_frame(int(event["message_id"])))

    async def chat_ignores(self, event: dict[str, Any]) -> None:
        """The reader changed their ignore list (on any page): the lines shown follow it."""
        await self.send(text_data=await self.chat_lines_frame())

    async def chat_lines_frame(self) -> str:
        """The table's recent lines for this reader, the reader's ignore list read again."""

        def read() -> tuple[frozenset[int], list[chat.ChatLine]]:
            ignoring = ignores.ignored_ids(user=self.user)
            return ignoring, chat.recent_messages(table_id=self.table_id, ignored=ignoring)

        self.ignoring, lines = await database_sync_to_async(read)()
        with translation.override(self.language):
            return chat_ui.all_lines_frame(lines, reader_id=self.user.pk)

    async def user_banned(self, event: dict[str, Any]) -> None:
        """Staff banned this player: a last frame saying so, then the socket is closed."""
        with translation.override(self.language):
            await self.send_table(error=_(ejection.EJECTED_NOTICE))
        self.closed = True
        await self.close(code=ejection.BANNED_CLOSE_CODE)

    async def user_timed_out(self, event: dict[str, Any]) -> None:
        """The player took a time-out (here or on a page): a last frame saying so, then the socket closes."""
        with translation.override(self.language):
            await self.send_table(error=_(ejection.TIMED_OUT_NOTICE))
        self.closed = True
        await self.close(code=ejection.BANNED_CLOSE_CODE)

    async def user_self_excluded(self, event: dict[str, Any]) -> None:
        """The player excluded themselves from play: a last frame saying so, then the socket closes."""
        with translation.override(self.language):
            await self.send_table(error=_(ejection.EXCLUDED_NOTICE))
        self.closed = True
        await self.close(code=ejection.BANNED_CLOSE_CODE)

    # ------------------------------------------------------------ out

    async def table_version(self, event: dict[str, Any]) -> None:
        """The group hint: the table changed. It carries the state it announces (one store read
        per change instead of one per socket); an older state than the one shown is skipped."""
        doc = announced.announced_doc(self.table_id, event)
        if doc is None:
            await self.send_table()
            return
        stamp = (doc.get("epoch"), event["version"])
        # A socket behind its table (the process was busy, and announcements queued up for it)
        # catches up in one frame: the whole table at the newest version this process has, and
        # the announcements still queued for it are then skipped below (none is lost: each frame
        # is the whole table). Its queue holds at most the versions made while it rendered one.
        newest = announced.newest(self.table_id)
        if newest is not None and newest[0] == stamp[0] and newest[1] > stamp[1]:
            stamp, doc = (newest[0], newest[1]), newest[2]
            metrics.COLLAPSED.inc()
        if self.shown is not None and stamp[0] == self.shown[0] and stamp[1] <= self.shown[1]:
            return
        await self._send_view(doc=doc, version=stamp[1])

    async def send_table(self, *, error: str | None = None, extra: str = "") -> None:
        state = await service.load_table_state(self.table_id)
        await self._send_view(doc=state.doc, version=state.version, error=error, extra=extra)

    async def _send_view(
        self, *, doc: dict[str, Any], version: int, error: str | None = None, extra: str = ""
    ) -> None:
        # Also reached from the group hint (another player's move). What every viewer of this version
        # sees is rendered once for all the table's sockets in this process (from the public view
        # only) when it has more than two; this viewer's own parts (their seat, their moves) are
        # spliced into it.
        with translation.override(self.language):
            view = build_view(doc, user_id=self.user.pk, version=version)
            said = announcement(before=self.said, after=view, error=error)
            care_said, care_html = await self._care_frame(view)
            if _sockets_here[self.table_id] >= SHARED_FROM:
                shared = regions.shared_regions(
                    table_id=self.table_id, doc=doc, version=version, seated=view["seated"]
                )
                html = regions.frame(shared=shared, view=view, error=error, announce=said + care_said)
            else:  # the same text, for two sockets cheaper whole
                html = regions.render_regions(view=view, error=error, announce=said + care_said)
        if error is None:
            # An error frame stands in for the notice: the same version's plain frame still comes.
            self.shown = (doc.get("epoch"), version)
            self.said = view
        await self.send(text_data=html + care_html + extra)

    # ------------------------------------------------------------ responsible play (care.py)

    async def _care_frame(self, view: dict[str, Any]) -> tuple[list[str], str]:
        """What the player's reality check and play-time warnings add to this frame: lines for the
        live region and the care region when it changed. Reads the database only as the player's
        hand starts or ends (or when the check shows, for its figures)."""
        state = self.care_state
        if state is None or not state.active:
            return [], ""
        key = care.hand_key(view)
        if key != state.hand_key:
            if state.hand_key is not None:
                state.facts = await database_sync_to_async(care.read_facts)(
                    user_id=self.user.pk, session_key=self.session_key
                )
            state.hand_key = key
        now = timezone.now()
        lines = []
        warning = state.new_warning(now)
        if warning is not None:
            lines.append(warning)
        due, start = state.due_at(), state.facts.start
        if (
            state.check is None
            and due is not None
            and start is not None
            and now >= due
            and care.between_hands(view)
        ):
            state.check = await database_sync_to_async(care.figures)(user=self.user, start=start)
            net = number_format(state.check.net, force_grouping=True)
            lines.append(
                _("Reality check: %(minutes)s minutes this session, net chips %(net)s.")
                % {"minutes": state.check.minutes, "net": f"{state.check.sign}{net}"}
            )
            position = view["my_position"]
            if position is not None and not view["seats"][position]["sitting_out"]:
                # Not dealt in while reading it; Continue brings the player back.
                state.sat_out = True
                self._spawn(self._care_sit_out(sitting_out=True))
        self._care_schedule(now)
        showing = state.showing(now)
        if showing == state.shown:
            return lines, ""
        state.shown = showing
        return lines, state.region(now)

    def _care_schedule(self, now: Any) -> None:
        """Wake this socket when time alone changes the care region (the check falls due, a warning)."""
        if self.care_wake is not None:
            self.care_wake.cancel()
            self.care_wake = None
        wake = self.care_state.wake_at(now) if self.care_state is not None else None
        if wake is None or self.closed:
            return
        delay = (wake - now).total_seconds() + 0.05
        loop = asyncio.get_running_loop()
        self.care_wake = loop.call_later(
            delay, lambda: self._spawn(self._command(json.dumps({"verb": "sync"})))
        )

    async def _care_sit_out(self, *, sitting_out: bool) -> None:
        # No longer seated here: nothing to sit out or come back from.
        with contextlib.suppress(service.Refused):
            await service.table_sit_out(user=self.user, table_id=self.table_id, sitting_out=sitting_out)

    async def _care_continue(self) -> None:
        """Continue: the check goes, the next comes an interval from now, the player is dealt in again."""
        state = self.care_state
        if state is None:
            return
        state.facts = await database_sync_to_async(care.answer_continue)(
            user_id=self.user.pk, session_key=self.session_key
        )
        await self._care_answered()
        # The player's other tables (tabs) take the answer too: one session, one reminder.
        await self.channel_layer.group_send(ejection.user_group(self.user.pk), {"type": "care.answered"})

    async def _care_answered(self) -> None:
        state = self.care_state
        if state is None:
            return
        state.check = None
        if state.sat_out:
            state.sat_out = False
            await self._care_sit_out(sitting_out=False)
        await self.send_table()

    async def care_answered(self, event: dict[str, Any]) -> None:
        """The player answered the reality check at another table: it goes here as well."""
        state = self.care_state
        if state is None or state.check is None:
            return
        state.facts = await database_sync_to_async(care.read_facts)(
            user_id=self.user.pk, session_key=self.session_key
        )
        self._spawn(self._care_answered())
