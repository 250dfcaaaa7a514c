from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0008_lobby_open_tables_index"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="playedhand",
            index=models.Index(fields=["-started_at", "-id"], name="playedhand_recent"),
        ),
    ]
