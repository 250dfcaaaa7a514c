"""The table's log worded for each viewer (games/tables/ui/log.py): in their language, remembered
per language, shared by the viewers of one document, and equal to wording each line afresh."""

from __future__ import annotations

import orjson
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from games.live import views
from games.live.document import copy_doc, new_table_doc, seat_entry
from games.live.entries import entry
from games.tables.ui import log
from games.tables.ui.jinja2 import active_words


def doc_with_log(lines: list) -> dict:
    doc = new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "kind": "cash"},
        seats=[seat_entry(user_id=1, name="ann", chips=500), None],
    )
    doc["log"] = lines
    return doc


def worded(doc_or_view: dict) -> log.WordedLog:
    """As the regions word it: a document's (or a view's, which holds the same list) log."""
    return log.worded_log(table_id=doc_or_view["table"]["id"], entries=doc_or_view["log"])


def test_log_lines_are_worded_per_language_and_remembered_only_within_it(monkeypatch):
    raise_line = entry("%(name)s raises to %(amount)s", name="ann", amount=40)
    doc = doc_with_log([raise_line, "a staff note, <shown> as written", raise_line])

    english = worded(doc).lines
    with translation.override("bg"):
        bulgarian = worded(doc).lines
    again = worded(doc).lines

    assert english == again == ["ann raises to 40", "a staff note, <shown> as written", "ann raises to 40"]
    assert bulgarian[0] == bulgarian[2] != english[0] and bulgarian[1] == english[1]
    # Another amount is another line, not the remembered one.
    doc["log"] = [entry("%(name)s raises to %(amount)s", name="ann", amount=80)]
    assert worded(doc).lines == ["ann raises to 80"]


def test_the_memory_of_worded_lines_is_bounded(monkeypatch):
    monkeypatch.setattr(log, "LINES_KEPT", 3)
    lines = [entry("%(name)s folds", name=f"p{i}") for i in range(5)]
    english = active_words()

    for _ in range(2):
        assert log._word_lines(lines, english) == [f"p{i} folds" for i in range(5)]
    # Full (3 or more) when the second wording began: forgotten, then this log's five remembered.
    assert len(log._LINES[english]) == 5


def test_viewers_of_one_document_share_its_worded_log_per_language(monkeypatch):
    doc = doc_with_log([entry("%(name)s folds", name="ann"), entry("%(name)s calls", name="bob")])
    ann = worded(views.build_view(doc, user_id=1, version=3)).lines
    spectator = worded(views.build_view(doc, user_id=None, version=3)).lines
    with translation.override("bg"):
        bulgarian = worded(views.build_view(doc, user_id=None, version=3)).lines
    changed = copy_doc(doc)
    changed["log"] = [*changed["log"], entry("%(name)s folds", name="bob")]

    assert ann is spectator  # worded once for both
    assert bulgarian is not ann and bulgarian != ann
    # The next document's log is its own list: worded again, never the old lines.
    assert worded(changed).lines == ["ann folds", "bob calls", "bob folds"]
    monkeypatch.setattr(log, "WORDED_KEPT", 1)
    assert worded(doc).lines == ["ann folds", "bob calls"]


def test_a_log_that_moved_on_is_worded_from_the_last_one_and_equals_wording_it_whole():
    lines = [entry("%(name)s raises to %(amount)s", name="<ann>", amount=n) for n in range(40)]
    doc = doc_with_log(lines)
    first = worded(doc)
    moved = doc_with_log([*lines[2:], entry("%(name)s folds", name="bo & co"), "a <b>staff</b> note"])
    followed = worded(moved)
    log._WORDED.clear()
    whole = worded(copy_doc(moved))

    assert followed.lines == whole.lines and followed.items == whole.items
    assert followed.lines[-2:] == ["bo & co folds", "a <b>staff</b> note"]
    assert followed.lines[:38] == first.lines[2:]
    assert str(followed.html).endswith("<li>bo &amp; co folds</li><li>a &lt;b&gt;staff&lt;/b&gt; note</li>")
    assert str(followed.html).startswith("<li>&lt;ann&gt; raises to 2</li>")


some_entries = st.one_of(
    st.builds(lambda n: entry("%(name)s folds", name=n), st.sampled_from(["ann", "<bob>", "c&d"])),
    st.builds(lambda a: entry("%(name)s raises to %(amount)s", name="ann", amount=a), st.integers(0, 9)),
    st.sampled_from(["a <b>staff</b> note", "plain"]),
)


@settings(max_examples=150, deadline=None)
@given(
    first=st.lists(some_entries, max_size=8),
    steps=st.lists(st.tuples(st.integers(0, 6), st.lists(some_entries, max_size=6)), max_size=6),
    language=st.sampled_from(["en", "bg"]),
)
def test_a_log_worded_from_the_last_one_equals_the_log_worded_whole(first, steps, language):
    """Differential: whatever the changes (lines dropped from the start, lines added, or a log
    that does not follow at all), the remembered wording equals wording each line afresh."""
    log._WORDED.clear()
    entries_ = list(first)
    with translation.override(language):
        for dropped, added in [(0, []), *steps]:
            # As another process decodes each document: equal entries, none of them the same object.
            entries_ = orjson.loads(orjson.dumps(entries_[dropped:] + added))
            worded_ = worded(doc_with_log(entries_))
            expected = [log.render_entry(item) for item in entries_]
            assert worded_.lines == expected
            assert str(worded_.html) == "".join(f"<li>{escape(line)}</li>" for line in expected)
