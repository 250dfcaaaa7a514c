from django.urls import path

from games.practice import views as practice_views

urlpatterns = [
    path("practice/", practice_views.practice_start, name="practice"),
    path("practice/<int:table_id>/new-game/", practice_views.practice_new_game, name="practice_new_game"),
]
