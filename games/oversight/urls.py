"""Under /admin/room/, behind the admin's own log-in (``admin_view``: staff only, never cached)."""

from django.contrib import admin
from django.urls import path

from games.oversight import views

app_name = "oversight"

urlpatterns = [
    path("", admin.site.admin_view(views.room_dashboard), name="dashboard"),
    path("now/", admin.site.admin_view(views.room_dashboard_figures), name="dashboard_figures"),
    path("patterns/", admin.site.admin_view(views.patterns_page), name="patterns"),
    path(
        "patterns/<int:a_id>/<int:b_id>/",
        admin.site.admin_view(views.hands_together_page),
        name="hands_together",
    ),
]
