"""What each username looks like, so that sign-up can refuse a look-alike of a name already taken."""

from django.db import migrations, models


def fill_skeletons(apps, schema_editor):
    # The live function on purpose: a later change to it comes with a migration that fills again.
    from accounts.usernames import username_skeleton

    User = apps.get_model("accounts", "User")
    for user in User.objects.only("pk", "username").iterator():
        User.objects.filter(pk=user.pk).update(username_skeleton=username_skeleton(user.username))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0007_computer_accounts")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(db_index=True, default="", editable=False),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
    ]
