"""The room's people talking to each other: table chat, ignore lists, reports and chat moderation.

Data and services only (no pages, no sockets): the table's socket (games.tables), the player pages
(games.players) and the staff's pages (games.admin, games.oversight) call in here.
"""
