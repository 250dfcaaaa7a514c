from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0012_chat_ignore_reports")]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="phrase",
            field=models.CharField(blank=True, default="", max_length=12, verbose_name="quick phrase"),
        ),
    ]
