"""The computer's three accounts, made here rather than on first use: made on first use, the name
went to whoever signed up ``computer-hard`` first, and with it the computer's seats and hands."""

from django.contrib.auth.hashers import make_password
from django.db import migrations

# Frozen here: a migration must not change when the code does.
LEVELS = {"easy": "Computer (easy)", "normal": "Computer (normal)", "hard": "Computer (hard)"}


def create_computer_accounts(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for level, name in LEVELS.items():
        if User.objects.filter(computer_level=level).exists():
            continue
        base = f"computer-{level}"
        made_on_first_use = User.objects.filter(
            username=base, is_active=False, last_login__isnull=True, password__startswith="!"
        ).first()
        if made_on_first_use is not None:  # the account the practice tables made: keep it, and its hands
            made_on_first_use.computer_level = level
            made_on_first_use.save(update_fields=["computer_level"])
            continue
        # A person holds the name (signed up before it was reserved): the computer takes another.
        username, n = base, 1
        while User.objects.filter(username__iexact=username).exists():
            n += 1
            username = f"{base}-{n}"
        User.objects.create(
            username=username,
            first_name=name,
            is_active=False,
            password=make_password(None),
            computer_level=level,
        )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_user_computer_level")]

    operations = [migrations.RunPython(create_computer_accounts, migrations.RunPython.noop)]
