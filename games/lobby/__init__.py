"""The lobby: the list of open tables (a page and a socket), opening a table, "Play now", invite links."""
