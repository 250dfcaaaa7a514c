"""The one refusal the social services raise: a message a person can read; nothing was changed."""

from __future__ import annotations


class Refused(ValueError):
    """A report, an ignore or a moderation step was refused; nothing was stored or sent."""
