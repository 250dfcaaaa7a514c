from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0014_table_seats_taken_and_lobby_rank")]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="phrase",
            field=models.CharField(
                blank=True, db_default="", default="", max_length=12, verbose_name="quick phrase"
            ),
        ),
    ]
