"""The staff's view of the room as a whole: the live dashboard (dashboard.py), the patterns in
stored hands worth a look (patterns.py), with their admin pages (views.py, urls.py; who may open
them in access.py), and a player's whole picture (player_picture.py, shown by the admin's player
page). Read-only: nothing here changes a player, a table or a chip."""
