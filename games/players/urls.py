"""URLs of the players' pages (included from svara_site/urls.py)."""

from django.urls import path

from games.players import friends
from games.players import views as player_views

urlpatterns = [
    path("players/<str:username>/", player_views.player_page, name="player_page"),
    path("leaderboard/", player_views.leaderboard, name="leaderboard"),
    path("friends/", friends.friends_page, name="friends"),
    path("friends/request/", friends.send_request, name="friend_request"),
    path("friends/accept/", friends.accept, name="friend_accept"),
    path("friends/decline/", friends.decline, name="friend_decline"),
    path("friends/cancel/", friends.cancel, name="friend_cancel"),
    path("friends/remove/", friends.remove, name="friend_remove"),
    path("friends/block/", friends.block, name="friend_block"),
    path("friends/unblock/", friends.unblock, name="friend_unblock"),
    path("friends/invite/", friends.invite, name="friend_invite"),
    path("friends/notices/", friends.notices, name="friend_notices"),
    # Short: Django's debug 404 page lists every route, and a phone must not scroll sideways on it.
    path("friends/<int:pk>/", friends.follow, name="friend_invitation"),
    path("friends/<int:pk>/dismiss/", friends.dismiss, name="friend_dismiss"),
]
