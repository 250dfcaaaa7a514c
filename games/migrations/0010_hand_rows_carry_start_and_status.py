from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_start_and_status(apps, schema_editor):
    """Each player's row takes its hand's start and status (one statement for every row)."""
    HandPlayer = apps.get_model("games", "HandPlayer")
    PlayedHand = apps.get_model("games", "PlayedHand")
    hand = PlayedHand.objects.filter(pk=OuterRef("hand_id"))
    HandPlayer.objects.update(
        started_at=Subquery(hand.values("started_at")[:1]),
        hand_status=Subquery(hand.values("status")[:1]),
    )


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_hand_list_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="handplayer",
            name="started_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name="handplayer",
            name="hand_status",
            field=models.CharField(
                choices=[("in_play", "in play"), ("finished", "finished"), ("cancelled", "cancelled")],
                default="finished",
                max_length=10,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(copy_start_and_status, migrations.RunPython.noop),
    ]
