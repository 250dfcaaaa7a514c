"""Sit-and-go tournaments (RULES.md §8): registration, the start, the end and the lists.

``service.py`` holds every change (register, unregister, start, finish), each in one database
transaction with the tournament's row locked; chips move only through the ledger's prize pool
(accounts.services.prize_pools). The numbers (formats, levels, places, prizes) are the engine's
(games.engine.tournament).
"""
