from django.urls import path

from games.tables import views

urlpatterns = [
    path("table/<int:table_id>/", views.table_page, name="table"),
]
