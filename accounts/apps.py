from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and chips"

    def ready(self) -> None:
        from accounts import (
            signals,  # noqa: F401  (connects the sign-up grant)
            staff_kinds,  # noqa: F401  (registers the accounts app's staff actions)
        )
