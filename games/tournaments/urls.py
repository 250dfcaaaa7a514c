from django.urls import path

from games.tournaments import views

urlpatterns = [
    path("tournaments/", views.tournaments_page, name="tournaments"),
    path("tournaments/list/", views.tournaments_list, name="tournaments_list"),
    path("tournaments/<str:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<str:tournament_id>/register/", views.register_view, name="tournament_register"),
    path("tournaments/<str:tournament_id>/unregister/", views.unregister_view, name="tournament_unregister"),
]
