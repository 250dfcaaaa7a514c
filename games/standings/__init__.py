"""The standings: each player's figures at real tables by day, week, month and all time.

Kept in ``games.models.Standing`` by ``count_hand``, which the settlement calls in its transaction,
and rebuilt from the stored hands by ``rebuild_standings`` (``manage.py rebuild_standings``): both
count the same hands the same way, which a differential test holds. Data only: the pages that read
it are ``games.players``.
"""
