"""Practice pages: choose a level and play the computer at once; start a new game."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.engine.bots import LEVELS
from games.live import practice


@login_required
def practice_start(request: HttpRequest) -> HttpResponse:
    """GET: the levels; POST: a new practice table against the chosen level, then its page."""
    if request.method == "POST":
        level = request.POST.get("level", "normal")
        turn = request.POST.get("turn_seconds", "30")
        try:
            table_id = async_to_sync(practice.practice_start)(
                user=request.user, level=level, turn_seconds=int(turn) if turn.isdigit() else -1
            )
        except practice.Refused as exc:
            messages.error(request, str(exc))
            return redirect("practice")
        return redirect("table", table_id=table_id)
    levels = [
        {
            "level": level,
            "style": practice.LEVEL_STYLES[level],
            "won": practice.measured_exploitability(level=level),
        }
        for level in LEVELS
    ]
    context = {"levels": levels, "chips": practice.PRACTICE_CHIPS, "turns": practice.PRACTICE_TURN_CHOICES}
    return render(request, "practice/start.html", context)


@login_required
@require_POST
def practice_new_game(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        async_to_sync(practice.practice_new_game)(user=request.user, table_id=table_id)
    except practice.Refused as exc:
        messages.error(request, str(exc))
    return redirect("table", table_id=table_id)
