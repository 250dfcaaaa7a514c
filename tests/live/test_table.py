"""games/live/table.py on its own: the pure functions of a table's document."""

from __future__ import annotations

import pytest

from games.live import table as t


def _remembering(ids: list[str]) -> t.Doc:
    doc = t.new_table_doc(table={"stake": 10}, seats=[None, None])
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
    with pytest.raises(t.Refused, match="changed since you acted"):
        t.check_command(doc, version=40, client_version=12, action_id=ids[0])
    # A new command on the current version goes through.
    assert t.check_command(doc, version=40, client_version=40, action_id="new") is True
