from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games and tables"

    def ready(self) -> None:
        from accounts.services.bans import user_banned
        from games.live.ejection import on_user_banned

        user_banned.connect(on_user_banned, dispatch_uid="games.eject_banned_player")
