from django.apps import AppConfig


class SvaraSiteConfig(AppConfig):
    """The composition root as an app only so that its deployment checks are registered."""

    name = "svara_site"
    verbose_name = "Svara room: site"

    def ready(self) -> None:
        from svara_site import checks  # noqa: F401
