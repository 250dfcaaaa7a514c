"""URLs of the players' pages (included from svara_site/urls.py)."""

from django.urls import path

from games.players import views as player_views

urlpatterns = [
    path("players/<str:username>/", player_views.player_page, name="player_page"),
    path("leaderboard/", player_views.leaderboard, name="leaderboard"),
]
