from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games and tables"

    def ready(self) -> None:
        from accounts.services.bans import user_banned
        from games import staff_kinds  # noqa: F401  (registers the games app's staff actions)
        from games.live.ejection import on_user_banned

        user_banned.connect(on_user_banned, dispatch_uid="games.eject_banned_player")

        from accounts.services.responsible import user_self_excluded
        from games.live.ejection import on_user_self_excluded

        user_self_excluded.connect(on_user_self_excluded, dispatch_uid="games.eject_self_excluded_player")

        from accounts.services.profile import provide_hand_stats
        from games.players.service import profile_stats

        # The profile's hands played and won and biggest pot: the player page's own figures.
        provide_hand_stats(profile_stats)

        from accounts.services.profile import provide_monthly_statement
        from games.players.service import monthly_statement

        # The profile's monthly statement (responsible play): hands, time and net chips per month.
        provide_monthly_statement(monthly_statement)

        from django.db.models.signals import post_delete, post_save

        from games.models import ChatWord
        from games.social.filter import words_changed

        # The chat filter's list is cached in every process: an edit tells them all (filter.py).
        post_save.connect(words_changed, sender=ChatWord, dispatch_uid="games.chat_words_saved")
        post_delete.connect(words_changed, sender=ChatWord, dispatch_uid="games.chat_words_deleted")
