"""A player's chips over the last days as an SVG drawn on the server: a line, the area under it,
the highest and lowest amounts and the first and last days. No script: the page's markup is the
picture, so it shows without JavaScript and prints."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

WIDTH, HEIGHT = 600, 180
# Room for the amounts on the left and the dates below.
LEFT, RIGHT, TOP, BOTTOM = 8, 8, 12, 24


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    line: str  # the polyline's points
    area: str  # the polygon under the line
    first_day: date
    last_day: date
    first: int
    last: int
    high: int
    low: int
    high_y: float
    low_y: float
    base_y: int
    last_x: float
    last_y: float

    @property
    def change(self) -> int:
        return self.last - self.first


def chips_chart(*, days: list[date], chips: list[int]) -> Chart:
    """The chart of ``chips[i]`` held at the end of ``days[i]`` (at least two days)."""
    high, low = max(chips), min(chips)
    span = high - low or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / (len(chips) - 1)

    def y(value: int) -> float:
        # A flat line sits in the middle rather than on the floor.
        if high == low:
            return round(TOP + plot_h / 2, 1)
        return round(TOP + plot_h * (high - value) / span, 1)

    points = [(round(LEFT + i * step, 1), y(v)) for i, v in enumerate(chips)]
    line = " ".join(f"{px},{py}" for px, py in points)
    base = TOP + plot_h
    area = f"{LEFT},{base} {line} {points[-1][0]},{base}"
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        line=line,
        area=area,
        first_day=days[0],
        last_day=days[-1],
        first=chips[0],
        last=chips[-1],
        high=high,
        low=low,
        high_y=y(high),
        low_y=y(low),
        base_y=base,
        last_x=points[-1][0],
        last_y=points[-1][1],
    )
