"""URLs of the report forms (included from svara_site/urls.py)."""

from django.urls import path

from games.reports import views

urlpatterns = [
    path("report/message/<int:message_id>/", views.report_message, name="report_message"),
    path("players/<str:username>/report/", views.report_player, name="report_player"),
]
