"""URLs of the rules, FAQ, calculator and fair-deck pages (included from svara_site/urls.py)."""

from django.urls import path

from games.rules import views as rules_views

urlpatterns = [
    path("rules/", rules_views.rules_page, name="rules"),
    path("rules/faq/", rules_views.faq_page, name="rules_faq"),
    path("rules/calculator/", rules_views.calculator_page, name="rules_calculator"),
    path("fair/", rules_views.fair_page, name="fair_deck"),
    path("fair/series/<int:table_id>-<int:number>.json", rules_views.series_file_view, name="series_file"),
]
