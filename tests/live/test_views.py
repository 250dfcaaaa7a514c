"""What one viewer may see (games/live/views.py): the parts not covered by the socket tests."""

from __future__ import annotations

from django.utils import translation

from games.live import table as t
from games.live import views


def doc_with_log(log: list) -> dict:
    doc = t.new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 2, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "practice": False},
        seats=[t.seat_entry(user_id=1, name="ann", chips=500), None],
    )
    doc["log"] = log
    return doc


def test_log_lines_are_worded_per_language_and_remembered_only_within_it(monkeypatch):
    raise_line = t.entry("%(name)s raises to %(amount)s", name="ann", amount=40)
    doc = doc_with_log([raise_line, "a staff note, <shown> as written", raise_line])

    english = views.build_view(doc, user_id=1, version=1)["log"]
    with translation.override("bg"):
        bulgarian = views.build_view(doc, user_id=1, version=1)["log"]
    again = views.build_view(doc, user_id=1, version=1)["log"]

    assert english == again == ["ann raises to 40", "a staff note, <shown> as written", "ann raises to 40"]
    assert bulgarian[0] == bulgarian[2] != english[0] and bulgarian[1] == english[1]
    # Another amount is another line, not the remembered one.
    doc["log"] = [t.entry("%(name)s raises to %(amount)s", name="ann", amount=80)]
    assert views.build_view(doc, user_id=1, version=2)["log"] == ["ann raises to 80"]


def test_the_memory_of_worded_lines_is_bounded(monkeypatch):
    monkeypatch.setattr(views, "LINES_KEPT", 3)
    doc = doc_with_log([t.entry("%(name)s folds", name=f"p{i}") for i in range(5)])
    english = views.active_words()

    for _ in range(2):
        # A copy each time: the same document's log would be taken worded as it is (below).
        view = views.build_view(t.copy_doc(doc), user_id=1, version=1)
        assert view["log"] == [f"p{i} folds" for i in range(5)]
    # Full (3 or more) when the second view began: forgotten, then this log's five remembered.
    assert len(views._LINES[english]) == 5


def test_viewers_of_one_document_share_its_worded_log_per_language(monkeypatch):
    doc = doc_with_log([t.entry("%(name)s folds", name="ann"), t.entry("%(name)s calls", name="bob")])
    ann = views.build_view(doc, user_id=1, version=3)["log"]
    spectator = views.build_view(doc, user_id=None, version=3)["log"]
    with translation.override("bg"):
        bulgarian = views.build_view(doc, user_id=None, version=3)["log"]
    changed = t.copy_doc(doc)
    changed["log"] = [*changed["log"], t.entry("%(name)s folds", name="bob")]

    assert ann is spectator  # worded once for both
    assert bulgarian is not ann and bulgarian != ann
    # The next document's log is its own list: worded again, never the old lines.
    assert views.build_view(changed, user_id=1, version=4)["log"] == ["ann folds", "bob calls", "bob folds"]
    monkeypatch.setattr(views, "WORDED_KEPT", 1)
    assert views.build_view(doc, user_id=1, version=3)["log"] == ["ann folds", "bob calls"]
