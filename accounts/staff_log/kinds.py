"""The kinds of staff action, each registered by the part that does it (accounts its own, the games
app its tables', chat's and reports'): its stored name, how the log shows it, the permission it
needs (None: superusers only) and what a staff member without it is told.

The log (``StaffAction.kind``) takes its choices from here, so ``accounts`` names no other app's
permission or action; a kind is registered once, when its part loads (a second, different
registration of the same name is a mistake and says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise


@dataclass(frozen=True)
class StaffKind:
    name: str  # stored in the log (at most 16 characters)
    label: Promise  # how the log shows it (translated lazily)
    permission: str | None  # "app.codename"; None: superusers only
    refusal: str  # a msgid (gettext_noop), translated when the refusal is raised

    def __str__(self) -> str:
        return self.name


_KINDS: dict[str, StaffKind] = {}


def register(*kinds: StaffKind) -> None:
    """Add these kinds to the log's; registering the same kind again changes nothing."""
    for kind in kinds:
        if len(kind.name) > 16:
            raise ValueError(f"a staff action's name has at most 16 characters: {kind.name!r}")
        known = _KINDS.setdefault(kind.name, kind)
        if known != kind:
            raise ValueError(f"the staff action {kind.name!r} is registered already, differently")


def kind_named(name: str) -> StaffKind:
    """The registered kind of this name; KeyError for none (its part did not register it)."""
    return _KINDS[name]


def kind_choices() -> list[tuple[str, Promise]]:
    """The log's choices (``StaffAction.kind``): every registered kind, in the order registered."""
    return [(kind.name, kind.label) for kind in _KINDS.values()]
