"""A svara nobody can join is shown: the tied hands with their points and the Svara line, to
every viewer, for a pause before the replay is dealt; nobody acts meanwhile."""

from __future__ import annotations

import pytest

from games.live import runtime, service, testing
from games.live import transitions as t
from games.live.document import Refused
from games.live.entries import log_text
from games.live.store import get_state_store
from games.live.views import build_view
from tests.live.test_service_hands import act, deck, seated_table, to_act

pytestmark = pytest.mark.django_db(transaction=True)


async def _tie_heads_up():
    table, (ann, bob) = await seated_table(["ann", "bob"], dark_play=False)
    await testing.stack_decks(table_id=table.pk, decks=[deck("10H JH QH", "10S JS QS")])
    await service.start_next_hand(table_id=table.pk)
    first = await to_act(table)
    opener, caller = (ann, bob) if first == ann.pk else (bob, ann)
    await act(table, opener, "raise", 20)
    state = await act(table, caller, "call")
    return table, ann, bob, state


async def test_a_tie_nobody_can_join_shows_the_tied_hands_before_the_replay() -> None:
    table, ann, bob, state = await _tie_heads_up()
    doc = state.doc
    assert "Svara! ann and bob tie on 30; the pot of 60 is replayed" in log_text(doc) or (
        "Svara! bob and ann tie on 30; the pot of 60 is replayed" in log_text(doc)
    )
    assert t.in_svara_pause(doc) and doc["timer"]["kind"] == "svara"
    for viewer in (ann.pk, bob.pk, None):  # both players and a spectator
        view = build_view(doc, user_id=viewer, version=state.version)
        shown = {s["name"]: (s["points"], len(s["cards"] or [])) for s in view["seats"]}
        assert shown == {"ann": (30, 3), "bob": (30, 3)}
        assert view["hand"]["svara_pause"]["points"] == 30
        assert view["actions"] is None
    with pytest.raises(Refused, match="replay is dealt in a moment"):
        await act(table, ann if state.doc["hand"]["players"][0] == ann.pk else bob, "fold")


async def test_after_the_pause_the_replay_is_dealt_and_timed() -> None:
    table, ann, bob, state = await _tie_heads_up()
    due = await get_state_store().claim_due(now=state.doc["timer"]["at"] + 0.01)
    assert [d.table_id for d in due] == [str(table.pk)]
    await runtime.handle_due(due[0])
    after = await service.load_table_state(table.pk)
    assert not t.in_svara_pause(after.doc) and after.doc["timer"]["kind"] == "turn"
    view = build_view(after.doc, user_id=ann.pk, version=after.version)
    mine = next(s for s in view["seats"] if s["name"] == "ann")
    other = next(s for s in view["seats"] if s["name"] == "bob")
    assert len(mine["cards"]) == 3 and other["cards"] is None  # the replay's own cards, hidden
    assert view["hand"]["svaras"] == 1


async def test_the_svara_is_a_banner_with_the_tied_hands_side_by_side_and_the_replays_countdown() -> None:
    import re

    from games.tables.ui.regions import render_regions

    table, ann, bob, state = await _tie_heads_up()
    for viewer in (ann.pk, None):  # a player and a spectator see the same tied hands (shown to all)
        html = render_regions(view=build_view(state.doc, user_id=viewer, version=state.version))
        pot = html[html.index('<section id="table-pot"') :]
        assert '<div class="svara-banner"' in pot, pot
        banner = pot[pot.index('<div class="svara-banner"') : pot.index("</section>")]
        hands = banner.split('<div class="svara-hand">')[1:]
        assert len(hands) == 2 and all(h.count('class="card') == 3 and "30 points" in h for h in hands), hands
        assert {re.search(r'<span class="name">([^<]*)', h).group(1) for h in hands} == {"ann", "bob"}
    assert re.search(r'class="svara-banner".*?The replay is dealt.*?data-deadline=', html, re.S)
