from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.translation import gettext_lazy
from django.views.generic import RedirectView


class FaviconRedirect(RedirectView):
    """To the room's icon, its name resolved per request: with hashed static names, resolving it
    when this module is imported failed every command run before collectstatic (migrate too)."""

    permanent = True

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("favicon.svg")


# The staff's panel says whose it is, not "Django administration".
admin.site.site_header = gettext_lazy("Svara room: staff")
admin.site.site_title = gettext_lazy("Svara room: staff")
admin.site.index_title = gettext_lazy("Running the room")
admin.site.index_template = "admin/room_index.html"  # with the room's dashboard and patterns

urlpatterns = [
    # Browsers ask for /favicon.ico where a page names no icon (a downloaded hand file, say).
    path("favicon.ico", FaviconRedirect.as_view()),
    path("admin/room/", include("games.oversight.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("games.lobby.urls")),
    path("", include("games.tables.urls")),
    path("", include("games.rules.urls")),
    path("", include("games.practice.urls")),
    path("", include("games.history.urls")),
    path("", include("games.players.urls")),
    path("", include("games.reports.urls")),
    path("", include("games.tournaments.urls")),
]

if getattr(settings, "SVARA_TEST_HOOKS", False):
    # Only svara_site/test_settings.py turns this on: under the production settings the test
    # hooks' URLs do not exist at all (tests/lobby/test_pages.py checks it in a subprocess).
    urlpatterns += [path("test-hooks/", include("games.tables.test_hooks"))]
