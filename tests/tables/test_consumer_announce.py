"""The table socket tells each viewer's live region what changed since the frame it last sent: the
other players' moves, the viewer's own turn with what it costs, a refusal, the result."""

from __future__ import annotations

import re

import pytest

from tests.tables.test_consumer import start, two_seated

pytestmark = pytest.mark.django_db(transaction=True)

ANNOUNCE_RE = re.compile(r'<div id="table-announce" hx-swap-oob="innerHTML">(.*?)</div>', re.S)


def said(frame: str) -> list[str]:
    """The lines a frame gives the page's live region (none: the region keeps what it had)."""
    match = ANNOUNCE_RE.search(frame)
    return re.findall(r"<p>(.*?)</p>", match.group(1)) if match else []


async def test_each_viewer_is_told_the_moves_its_turn_a_refusal_and_the_result():
    table, ann, bob, a, b = await two_seated()
    assert any("bob sits down with 500" in said(f) for f in a.frames)
    await start(table, a, b)
    actor = next(v for v in (a, b) if "verb-raise" in v.last)
    other = b if actor is a else a
    actor_name, other_name = ("ann", "bob") if actor is a else ("bob", "ann")
    assert any(said(f)[-1:] == ["Your turn, nothing to call"] for f in actor.frames)
    assert not any("Your turn" in line for f in other.frames for line in said(f))

    await actor.act("raise", 20)
    frame = await other.until(lambda f: "verb-call" in f)
    assert said(frame) == [f"{actor_name} raises to 20", "Your turn, 20 to call"]
    await actor.until(lambda f: f"{actor_name} raises to 20" in said(f))
    assert not any("Your turn" in line for line in said(actor.last))

    refused = await other.act("raise", 25)  # below the smallest raise (30): said, nothing changes
    assert said(refused) == ["the smallest raise is to 30"]

    await other.act("call")
    for viewer in (a, b):
        await viewer.until(lambda f: any(re.fullmatch(r"(ann|bob) won 60", line) for line in said(f)))
    lines = [line for f in a.frames for line in said(f)]
    assert f"{other_name} calls 20" in lines
    # Short: the log's seed hash and revealed seed are not said.
    assert not [line for line in lines if re.search(r"[0-9a-f]{16}", line)]
