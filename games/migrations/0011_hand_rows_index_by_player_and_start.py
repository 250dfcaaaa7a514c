from django.db import migrations, models


class Migration(migrations.Migration):
    # Its own migration (its own transaction on PostgreSQL): the column is made NOT NULL after the
    # rows filled by the previous one are committed.

    dependencies = [
        ("games", "0010_hand_rows_carry_start_and_status"),
    ]

    operations = [
        migrations.AlterField(
            model_name="handplayer",
            name="started_at",
            field=models.DateTimeField(),
        ),
        migrations.AddIndex(
            model_name="handplayer",
            index=models.Index(fields=["user", "-started_at", "-hand"], name="handplayer_user_started"),
        ),
    ]
