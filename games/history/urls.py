"""URLs of the hand history pages (included from svara_site/urls.py)."""

from django.urls import path

from games.history import views as history_views

urlpatterns = [
    path("hands/", history_views.my_hands, name="my_hands"),
    path("hands/<int:pk>/", history_views.hand_page, name="hand_replay"),
    path("hands/<int:pk>/hand.json", history_views.hand_file, name="hand_file"),
]
