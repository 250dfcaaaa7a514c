from django.urls import path

from games.tables import views

urlpatterns = [
    path("table/<int:table_id>/", views.table_page, name="table"),
    path("table/<int:table_id>/sit/", views.take_seat, name="take_seat"),
    path("chat/ignore/", views.ignore_player, name="chat_ignore"),
    path("chat/unignore/", views.unignore_player, name="chat_unignore"),
    path("chat/ignored/", views.ignored_players, name="ignored_players"),
]
