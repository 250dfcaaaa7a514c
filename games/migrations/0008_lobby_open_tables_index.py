from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0007_handplayer_user_recent"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="table",
            index=models.Index(
                condition=models.Q(("practice", False), ("private", False), ("status", "open")),
                fields=["stake", "id"],
                name="table_lobby_open",
            ),
        ),
    ]
