"""The players' side of reports: the report forms (a player, from their page; a message, from the
table's chat); the staff's side (the report's page, the chat's admin) is in
``games.reports.admin``. Thin views over ``games.social``."""
