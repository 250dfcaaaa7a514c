from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0013_table_event_time_bank")]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="phrase",
            field=models.CharField(
                blank=True, db_default="", default="", max_length=12, verbose_name="quick phrase"
            ),
        ),
    ]
