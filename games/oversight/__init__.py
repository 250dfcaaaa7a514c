"""The staff's view of the room as a whole: the live dashboard (dashboard.py) and the patterns in
stored hands worth a look (patterns.py), with their admin pages (views.py, urls.py). Read-only:
nothing here changes a player, a table or a chip."""
