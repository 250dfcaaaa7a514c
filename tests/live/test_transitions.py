"""The pure functions of a table's document: games/live/transitions.py, document.py and entries.py."""

from __future__ import annotations

import orjson
import pytest

from games.live import transitions as t
from games.live.document import Doc, Refused, copy_doc, hand_of, new_table_doc, position_of, seat_entry
from games.live.entries import entry, entry_args, shown_name, word_entry
from games.tables.ui.log import render_entry


def _remembering(ids: list[str]) -> Doc:
    doc = new_table_doc(table={"stake": 10}, seats=[None, None])
    for action_id in ids:
        t._remember(doc, action_id)
    return doc


def test_a_repeated_action_id_is_applied_once_inside_and_outside_the_ids_kept() -> None:
    ids = [f"a{n}" for n in range(t.ACTION_IDS_KEPT + 5)]
    doc = _remembering(ids)
    assert len(doc["action_ids"]) == t.ACTION_IDS_KEPT
    # A recent repeat (a client retrying) is recognised and silently not applied again.
    assert t.check_command(doc, version=40, client_version=39, action_id=ids[-1]) is False
    # One that fell out of the list was made on an old version: refused as stale, not applied.
    with pytest.raises(Refused, match="changed since you acted"):
        t.check_command(doc, version=40, client_version=12, action_id=ids[0])
    # A new command on the current version goes through.
    assert t.check_command(doc, version=40, client_version=40, action_id="new") is True


def _doc_in_play() -> Doc:
    table = {"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 30}
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=uid, name=name, chips=500) for uid, name in ((1, "ann"), (2, "bob"))],
    )
    return t.start_hand(doc, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")


def test_a_copy_shares_only_the_log_entries_and_changing_it_leaves_the_original_as_it_was() -> None:
    doc = _doc_in_play()
    before = orjson.dumps(doc)
    copy = copy_doc(doc)
    assert copy == doc
    # Entries are never changed once written, so they are shared; the list itself is the copy's.
    assert copy["log"] is not doc["log"] and all(a is b for a, b in zip(copy["log"], doc["log"], strict=True))
    copy["log"].append(entry("%(name)s folds", name="ann"))
    copy["seats"][0]["chips"] = 1
    copy["hand"]["state"]["pot"] = 999
    copy["table"]["status"] = "closed"
    assert orjson.dumps(doc) == before


def test_every_change_leaves_the_document_it_was_given_as_it_was() -> None:
    """The store's recent state and an announced document are shared: a change must copy."""
    doc = _doc_in_play()
    before = orjson.dumps(doc)
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    changed = t.apply_move(doc, user_id=to_act, verb="raise", amount=20, now=2.0, action_id="a1")
    changed = t.apply_move(changed, user_id=3 - to_act, verb="fold", amount=None, now=3.0, action_id="a2")
    ended = orjson.dumps(changed)
    t.mark_settled(changed, now=4.0, left=[])
    assert orjson.dumps(changed) == ended
    t.apply_timeout(doc, now=40.0)
    t.set_sitting_out(doc, user_id=1, sitting_out=True, now=5.0)
    t.cancel_hand(doc, notice="staff", now=6.0)
    assert orjson.dumps(doc) == before


def test_a_played_documents_log_lines_are_not_tracked_by_the_collector_once_read() -> None:
    """As another process reads the document (JSON), each plain log line is a dict the garbage
    collector never walks; a document of a played hand is then mostly untracked."""
    import gc

    doc = _doc_in_play()
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    doc = t.apply_move(doc, user_id=to_act, verb="raise", amount=20, now=2.0, action_id="a1")
    doc = t.apply_move(doc, user_id=3 - to_act, verb="fold", amount=None, now=3.0, action_id="a2")
    read = orjson.loads(orjson.dumps(doc))
    assert len(read["log"]) >= 4
    assert not any(gc.is_tracked(line) for line in read["log"])


def test_a_line_of_a_document_written_before_is_worded_as_the_same_line_now() -> None:
    now = entry("Hand %(number)s: %(name)s won %(pot)s", number=3, name="ann", pot=40)
    before = {"msg": now["msg"], "args": {"number": 3, "name": "ann", "pot": 40}}
    nested = entry("Hand %(number)s is cancelled: %(reason)s", number=4, reason=now)
    nested_before = {"msg": nested["msg"], "args": {"number": 4, "reason": before}}
    assert word_entry(now) == word_entry(before)
    assert word_entry(now) == "Hand 3: ann won 40"
    assert word_entry(nested) == word_entry(nested_before)
    assert entry_args(before) == entry_args(now) == {"number": 3, "name": "ann", "pot": 40}


def test_an_entry_argument_may_not_take_the_name_of_the_old_arguments() -> None:
    with pytest.raises(ValueError, match="args"):
        entry("%(args)s", args="x")


def test_the_computers_name_in_a_line_is_the_viewers_and_a_players_stays_as_typed() -> None:
    from django.utils import translation

    won = entry("Hand %(number)s: %(name)s won %(pot)s", number=3, name="Computer (normal)", pot=40)
    tie = entry("%(names)s tie", names=["ann", "Computer (easy)"])
    with translation.override("bg"):
        assert "Компютър (нормален)" in render_entry(won)
        assert render_entry(tie).startswith("ann и Компютър (лесен)")
        assert render_entry(entry("%(name)s sits out", name="Computer")).startswith("Computer ")
        assert shown_name("ann") == "ann"
    assert word_entry(won) == "Hand 3: Computer (normal) won 40"  # as stored, for staff


def test_chip_counts_in_a_line_are_grouped_as_the_language_writes_them() -> None:
    from django.utils import translation

    line = entry("%(name)s sits down with %(chips)s", name="ann", chips=50000)
    small = entry("%(name)s raises to %(amount)s", name="ann", amount=999)
    with translation.override("en"):
        assert render_entry(line) == "ann sits down with 50,000"
        assert render_entry(small) == "ann raises to 999"
    with translation.override("bg"):
        assert "50\xa0000" in render_entry(line)
    assert word_entry(line) == "ann sits down with 50000"  # as stored


def test_a_moves_line_and_its_seat_carry_what_it_put_in_whoever_wins() -> None:
    """A raise to 20 and the call of 20 that ends the hand: the call's line says 20 whether the
    caller wins the pot or not (its chips after the hand hold the pot), and the seats keep each
    player's last move of the round until the round ends."""
    winners = set()
    for n in range(16):
        doc = _doc_in_play_seeded(f"{n:064x}")
        raiser = doc["hand"]["players"][hand_of(doc).to_act]
        doc = t.apply_move(doc, user_id=raiser, verb="raise", amount=20, now=2.0, action_id="a1")
        raiser_pos = position_of(doc, raiser)
        assert doc["hand"]["moves"] == {str(raiser_pos): ["raise", 20]}
        doc = t.apply_move(doc, user_id=3 - raiser, verb="call", amount=None, now=3.0, action_id="a2")
        lines = [word_entry(line) for line in doc["log"]]
        caller = doc["seats"][position_of(doc, 3 - raiser)]["name"]
        assert f"{caller} calls 20" in lines, lines
        if doc["hand"] is None:  # else a tie: a svara
            winners.add(doc["last"]["winner"] == position_of(doc, 3 - raiser))
    assert winners == {True, False}  # the caller won some of the hands and lost others


def _doc_in_play_seeded(seed: str) -> Doc:
    fresh = new_table_doc(
        table=_doc_in_play()["table"],
        seats=[seat_entry(user_id=uid, name=name, chips=500) for uid, name in ((1, "ann"), (2, "bob"))],
    )
    return t.start_hand(fresh, number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00", server_seed=seed)


def _two_ready_players() -> Doc:
    table = {"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 30}
    return new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=uid, name=name, chips=500) for uid, name in ((1, "ann"), (2, "bob"))],
    )


def test_the_deals_and_the_showdowns_pauses_are_three_and_six_seconds_unless_the_settings_shorten_them(
    settings,
) -> None:
    doc = _two_ready_players()
    t.schedule_start(doc, now=10.0)
    assert doc["timer"] == {"kind": "start", "at": 13.0}
    assert t.showdown_pause() == 6.0

    settings.LIVE_START_DELAY_MS, settings.LIVE_SHOWDOWN_PAUSE_MS = 500, 250
    doc = _two_ready_players()
    t.schedule_start(doc, now=10.0)
    assert doc["timer"] == {"kind": "start", "at": 10.5}
    assert t.showdown_pause() == 0.25


def test_a_seat_or_hand_read_where_there_is_none_says_so() -> None:
    from games.live.document import hand_doc, seat_at

    doc = _two_ready_players()
    assert seat_at(doc, 0)["name"] == "ann"
    doc["seats"][1] = None
    with pytest.raises(LookupError, match="nobody sits at seat 1"):
        seat_at(doc, 1)
    with pytest.raises(LookupError, match="no hand in play"):
        hand_doc(doc)
    assert hand_doc(_doc_in_play())["number"] == 1


def test_a_busted_seat_that_adds_what_the_top_up_offers_is_dealt_in_again() -> None:
    """The table's "Top up" adds exactly what deals the seat in (games.engine.table_rules.top_up):
    that seat is no longer sitting out and is among those dealt the next hand."""
    from games.engine.table_rules import top_up

    table = {"id": 5, "name": "elm", "stake": 10, "seat_count": 2, "dark_play": False, "turn_seconds": 30}
    doc = new_table_doc(
        table=table | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=1, name="ann", chips=5), seat_entry(user_id=2, name="bob", chips=500)],
    )
    t._sit_out_broke_players(doc)  # as after a settled hand that left ann with 5
    assert doc["seats"][0]["sitting_out"] and t.ready_positions(doc) == [1]
    offer = top_up(chips=5, stake=10)
    assert offer is not None and (offer.need, offer.least, offer.again) == (20, 15, 495)
    doc = t.add_chips(doc, user_id=1, amount=offer.least, now=2.0)
    assert not doc["seats"][0]["sitting_out"] and t.ready_positions(doc) == [0, 1]
    assert top_up(chips=20, stake=10) is None


def _played_out(*, fold: bool) -> Doc:
    """A heads-up hand played to its end: the first to act folds, or raises and is called (a showdown)."""
    doc = t.start_hand(_two_ready_players(), number=1, now=1.0, started_at="2026-01-01T00:00:00+00:00")
    for step in range(60):
        if not doc["hand"]:
            break
        if t.in_svara_pause(doc):  # a random deck may tie: its replay is dealt after the pause
            doc = t.end_svara_pause(doc, now=2.0 + step)
            continue
        hand = hand_of(doc)
        legal = hand.legal()
        verb = "fold" if fold else ("call" if "call" in legal.verbs else "raise")
        amount = legal.raise_range[0] if verb == "raise" else None
        user = doc["hand"]["players"][legal.seat]
        doc = t.apply_move(doc, user_id=user, verb=verb, amount=amount, now=2.0 + step, action_id=f"a{step}")
    assert doc["ended"] and not doc["hand"]
    return doc


def test_a_showdowns_result_stays_on_screen_at_least_six_seconds_a_fold_four() -> None:
    shown = t.mark_settled(_played_out(fold=False), now=100.0, left=[])
    assert shown["last"]["cards"] and shown["timer"] == {"kind": "start", "at": 106.0}
    folded = t.mark_settled(_played_out(fold=True), now=100.0, left=[])
    assert not folded["last"]["cards"] and folded["timer"] == {"kind": "start", "at": 104.0}


def _as_written_before(line: dict) -> dict:
    """A log line as a document written before events kept it: the message itself, not its kind."""
    from games.live.entries import entry_msg

    if "e" not in line:
        return line
    return {"msg": entry_msg(line), **{k: v for k, v in line.items() if k != "e"}}


def test_the_log_keeps_events_not_sentences_and_words_them_when_shown() -> None:
    from django.utils import translation

    from games.live.entries import LINES, log_text

    doc = _doc_in_play()
    to_act = doc["hand"]["players"][hand_of(doc).to_act]
    doc = t.apply_move(doc, user_id=to_act, verb="raise", amount=20, now=2.0, action_id="a1")
    doc = t.apply_move(doc, user_id=3 - to_act, verb="fold", amount=None, now=3.0, action_id="a2")
    log = doc["log"]
    assert all(set(line) & {"e", "msg"} == {"e"} and line["e"] in LINES for line in log)
    assert {"e": "raise", "name": doc["seats"][position_of(doc, to_act)]["name"], "amount": 20} in log
    assert log[-1]["e"] == "won" and log[-1]["pot"] == 40  # two antes and the raise to 20
    # No sentence is stored: the words come from the kind, in each viewer's language.
    text = orjson.dumps(log)
    assert b"%(" not in text and b" " not in text.replace(b"Computer (", b"")
    before = [_as_written_before(line) for line in log]
    assert len(orjson.dumps(before)) > 1.5 * len(text)  # the sentences were the most of it
    assert log_text(doc) == [word_entry(line) for line in before]
    for language in ("en", "bg"):
        with translation.override(language):
            assert [render_entry(line) for line in log] == [render_entry(line) for line in before]


def test_a_document_written_with_sentences_plays_on_and_words_old_and_new_lines_alike() -> None:
    """A restart while people play: the store still holds documents whose log kept sentences. The
    new code plays the hand on from one, and its log reads as one log."""
    from games.live.entries import log_text

    fresh = _doc_in_play()
    old = copy_doc(fresh)
    old["log"] = [_as_written_before(line) for line in fresh["log"]]
    assert all("msg" in line for line in old["log"])
    to_act = old["hand"]["players"][hand_of(old).to_act]
    played = t.apply_move(old, user_id=to_act, verb="fold", amount=None, now=2.0, action_id="a1")
    alike = t.apply_move(fresh, user_id=to_act, verb="fold", amount=None, now=2.0, action_id="a1")
    assert log_text(played) == log_text(alike)
    assert "msg" in played["log"][0] and "e" in played["log"][-1]


def test_a_kind_this_build_has_no_words_for_is_shown_as_its_arguments_not_an_error() -> None:
    """During a rolling restart an older process may read a line a newer one logged."""
    assert word_entry({"e": "a kind from a newer build", "name": "ann"}) == "a kind from a newer build ann"
    with pytest.raises(ValueError, match="no words"):
        t.add_line(_doc_in_play(), "no such kind", name="ann")
