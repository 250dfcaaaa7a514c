"""The table chat's HTML: its lines for one reader, and the out-of-band frames the table's socket
sends (a line added, a line deleted, the whole list again, a notice for the sender only).

Everything a player typed is escaped here and nothing is linked but the sender's name: a URL in a
message stays text. Quick phrases are worded in the reader's (active) language.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

from django.utils import timezone
from django.utils.translation import gettext as _
from markupsafe import Markup, escape

from games.social.chat import QUICK_PHRASES, ChatLine, phrase_text


def player_url(username: str) -> str:
    return f"/players/{quote(username, safe='')}/"


def line_html(line: ChatLine, *, reader_id: int | None) -> Markup:
    """One line: the sender's name (to their page), the time, the text; for another's line a
    small menu to ignore the sender or report the message."""
    when = timezone.localtime(line.when)
    text = phrase_text(line.phrase) if line.phrase in QUICK_PHRASES else line.text
    name = escape(line.username)
    tools = Markup("")
    if line.user_id is not None and line.user_id != reader_id:
        tools = Markup(
            '<span class="chat-tools">'
            '<button type="button" class="chat-ignore" hx-post="/chat/ignore/" hx-swap="none" '
            'hx-vals=\'{{"user": {uid}}}\' title="{ignore_title}">{ignore}</button> '
            # A new tab: reporting takes nobody off the table mid-hand.
            '<a class="chat-report" href="/report/message/{mid}/" target="_blank" rel="noopener" '
            'title="{report_title}">{report}</a>'
            "</span>"
        ).format(
            uid=int(line.user_id),
            mid=int(line.id),
            ignore=_("Ignore"),
            ignore_title=_("Hide %(name)s's messages at every table") % {"name": line.username},
            report=_("Report"),
            report_title=_("Report this message to the staff"),
        )
    phrase_class = " chat-phrase" if line.phrase else ""
    return Markup(
        '<li id="chat-msg-{mid}" class="chat-line{pc}" data-user="{uid}">'
        '<a class="chat-name" href="{url}">{name}</a> '
        '<time datetime="{iso}">{clock}</time> '
        '<span class="chat-text">{text}</span>{tools}</li>'
    ).format(
        mid=int(line.id),
        pc=phrase_class,
        uid=line.user_id or "",
        url=player_url(line.username),
        name=name,
        iso=line.created_at,
        clock=when.strftime("%H:%M"),
        text=text,
        tools=tools,
    )


def lines_html(lines: Iterable[ChatLine], *, reader_id: int | None) -> Markup:
    return Markup("").join(line_html(line, reader_id=reader_id) for line in lines)


def added_frame(line: ChatLine, *, reader_id: int | None) -> str:
    """A new line, appended to the list (htmx out-of-band, beforeend)."""
    return str(
        Markup('<ol id="chat-lines" hx-swap-oob="beforeend">{}</ol>').format(
            line_html(line, reader_id=reader_id)
        )
    )


def deleted_frame(message_id: int) -> str:
    """A line the staff deleted: gone from the page (htmx out-of-band delete)."""
    return f'<li id="chat-msg-{int(message_id)}" hx-swap-oob="delete"></li>'


def all_lines_frame(lines: Iterable[ChatLine], *, reader_id: int | None) -> str:
    """The whole list again (on connecting, and after the reader's ignore list changed)."""
    return str(
        Markup('<ol id="chat-lines" hx-swap-oob="innerHTML">{}</ol>').format(
            lines_html(lines, reader_id=reader_id)
        )
    )


def notice_frame(notice: str | None) -> str:
    """The chat's notice for the sender only (a refusal), or cleared after a message was taken."""
    if notice:
        return str(
            Markup('<p id="chat-notice" class="chat-notice error" hx-swap-oob="true">{}</p>').format(notice)
        )
    return '<p id="chat-notice" class="chat-notice" hx-swap-oob="true"></p>'
