"""The faces a player may choose (static/faces/<name>.svg, drawn for this room): no uploads, so
nothing a player shows needs moderating and every face is a file the site already serves.

The order is the profile's; the words name each face for a screen reader and the picker's labels.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

FACES: dict[str, Promise] = {
    "fox": _("fox"),
    "owl": _("owl"),
    "cat": _("cat"),
    "bear": _("bear"),
    "frog": _("frog"),
    "hare": _("hare"),
    "penguin": _("penguin"),
    "lion": _("lion"),
    "robot": _("robot"),
    "moon": _("moon"),
    "sun": _("sun"),
    "clover": _("clover"),
}
# The database's choices: "" is no face chosen (the seat shows the name's first letter).
FACE_CHOICES = [("", _("no face")), *FACES.items()]


def is_face(value: object) -> bool:
    """A face the room ships, or "" for none."""
    return isinstance(value, str) and (value == "" or value in FACES)


def face_path(face: str) -> str:
    """The face's file under static/ (for ``static()``)."""
    return f"faces/{face}.svg"
