"""The ledger: every chip in the room is an entry of a balanced transaction, and only this package
writes them (``posting.post``: locked, balanced, idempotent). ``transfers`` moves chips (buy-in,
cash-out, a hand's settlement, the house's adjustments) and reads balances; ``audit`` checks the
whole; ``errors`` are its refusals.

Its own package, with its own import contract (pyproject.toml): it knows accounts and their
balances, not who may move them (bans, breaks, loss limits, staff rights: accounts.services and
accounts.staff_log, above it), no page and nothing of ``games``. Import from the modules.
"""
