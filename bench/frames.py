"""Reading table frames as a player over a real socket would: the seats, the face-up cards in each,
the moves offered, and whether a frame shows a card its viewer must not see (``hidden_cards_seen``).

Used by the fault drill (bench/drill.py) and the multi-process tests, whose players check every
frame they receive.
"""

from __future__ import annotations

import re

VERSION_RE = re.compile(r'id="table-version"[^>]*data-version="(\d+)"[^>]*data-epoch="([0-9a-f]*)"')
SEAT_RE = re.compile(r'<div class="seat([^"]*)" data-position="(\d+)"[^>]*>')  # then its role and label
# A face-up card: a card image that is not a back, or any "<rank> of <suit>" label (also outside a card,
# and whatever words the card template uses next: a check that matches nothing would pass vacuously).
CARD_RE = re.compile(
    r'<span class="card(?! back)[^"]*"[^>]*aria-label="([^"]+)"'
    r'|aria-label="((?:\d+|seven|eight|nine|ten|jack|queen|king|ace) of (?:clubs|diamonds|hearts|spades))"'
)


def face_up(html: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in CARD_RE.finditer(html)]


PHASE_RE = re.compile(r'id="table-pot"[^>]*data-phase="(\w+)"')
IN_PLAY_RE = re.compile(r"Hand \d+ ·")  # the hand line while a hand is in play
OVER_RE = re.compile(r"Hand \d+: .* won \d+\.")  # the result line between hands
MOVE_RE = re.compile(r'name="verb" value="(dark|decline|fold|pass|call|raise|join|skip)"')
CONTROLS = ("sitout", "comeback", "add", "leave")


def _region(frame: str, region_id: str) -> str:
    start = frame.find(f'id="{region_id}"')
    if start < 0:
        return ""
    end = frame.find("</section>", start)
    return frame[start : end if end >= 0 else len(frame)]


def seat_blocks(frame: str) -> dict[int, tuple[bool, str]]:
    """Each seat's HTML, and whether it is the viewer's own seat."""
    seats = _region(frame, "table-seats")
    marks = list(SEAT_RE.finditer(seats))
    return {
        int(mark.group(2)): (
            "me" in mark.group(1).split(),
            seats[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(seats)],
        )
        for i, mark in enumerate(marks)
    }


def seat_cards(frame: str) -> dict[int, tuple[bool, list[str]]]:
    """For each seat: (is it the viewer's own seat, the face-up cards in it)."""
    return {pos: (mine, face_up(block)) for pos, (mine, block) in seat_blocks(frame).items()}


def hidden_cards_seen(frame: str) -> list[str]:
    """What this frame shows that its viewer must not see; empty when it is clean.

    While a hand is in play no seat but the viewer's own may hold a face-up card. Between hands only
    hands shown down may show (the seat then also shows its points); cards anywhere outside the seats
    are always a leak.
    """
    problems: list[str] = []
    blocks = seat_blocks(frame)
    in_seats = sum(len(face_up(block)) for _, block in blocks.values())
    # A svara's banner repeats the tied hands beside each other: only hands the seats show down.
    banner = face_up(_svara_banner(frame))
    shown_down = {c for _, block in blocks.values() if "points</" in block for c in face_up(block)}
    if any(c not in shown_down for c in banner):
        problems.append(
            f"the svara banner shows {[c for c in banner if c not in shown_down]}, not shown down"
        )
    if len(face_up(frame)) != in_seats + len(banner):
        problems.append("face-up cards outside the seats")
    in_play = hand_in_play(frame)
    for pos, (mine, block) in blocks.items():
        cards = face_up(block)
        if mine or not cards:
            continue
        if in_play:
            problems.append(f"seat {pos}'s cards {cards} during the hand")
        elif "points</" not in block:
            problems.append(f"seat {pos}'s cards {cards} without a showdown")
    return problems


SVARA_BANNER_RE = re.compile(r'<div class="svara-banner[^"]*"(.*?)<p class="svara-next">', re.S)


def _svara_banner(frame: str) -> str:
    found = SVARA_BANNER_RE.search(frame)
    return found.group(1) if found else ""


def hand_in_play(frame: str) -> bool:
    """The pot region says whether cards are hidden now: a hand's dark round or betting (its
    data-phase, else its hand line)."""
    phase = PHASE_RE.search(frame)
    if phase:
        # A svara's join window and its pause show the tied showdown: as between hands, only hands
        # shown down (with their points) may show.
        return phase.group(1) in ("dark", "betting")
    return bool(IN_PLAY_RE.search(_region(frame, "table-pot")))


def others_shown(frame: str) -> set[int]:
    return {pos for pos, (mine, cards) in seat_cards(frame).items() if cards and not mine}


def moves(frame: str) -> list[str]:
    """The moves offered in the actions region (it only shows for the player to act)."""
    verbs = MOVE_RE.findall(_region(frame, "table-actions"))
    return [v for v in dict.fromkeys(verbs) if v not in CONTROLS]
