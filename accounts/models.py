from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """The room's user. Custom from the first migration so fields can be added later."""
