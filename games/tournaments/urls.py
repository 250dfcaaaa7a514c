from django.urls import path

from games.tournaments import views

urlpatterns = [
    path("tournaments/", views.tournaments_page, name="tournaments"),
    path("tournaments/list/", views.tournaments_list, name="tournaments_list"),
    path("tournaments/<str:pk>/", views.tournament_page, name="tournament"),
    path("tournaments/<str:pk>/register/", views.register_view, name="tournament_register"),
    path("tournaments/<str:pk>/unregister/", views.unregister_view, name="tournament_unregister"),
]
