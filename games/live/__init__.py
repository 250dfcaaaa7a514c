"""Tables in play, as data: the document and its changes, the commands that store them, the clock
that fires their deadlines, and what each viewer may see (no HTML: games/tables/ui draws it)."""
