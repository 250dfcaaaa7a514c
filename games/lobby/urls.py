from django.urls import path

from games.lobby import views

urlpatterns = [
    path("", views.home, name="home"),
    path("lobby/", views.lobby_page, name="lobby"),
    path("lobby/tables/", views.lobby_tables, name="lobby_tables"),
    path("lobby/play-now/", views.play_now, name="play_now"),
    path("tables/new/", views.new_table, name="new_table"),
    path("t/<str:code>/", views.invite, name="invite"),
    path("balance/", views.balance, name="balance"),
]
