"""The players' side of reports and ignore lists: the report forms (a player, a message) and the
ignore button of a player's page; the staff's side (the report's page, the chat's admin) is in
``games.reports.admin``. Thin views over ``games.social``."""
