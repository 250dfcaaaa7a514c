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
        assert views.build_view(doc, user_id=1, version=1)["log"] == [f"p{i} folds" for i in range(5)]
    # Full (3 or more) when the second view began: forgotten, then this log's five remembered.
    assert len(views._LINES[english]) == 5
