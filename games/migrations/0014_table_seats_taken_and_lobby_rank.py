# The lobby sorts open tables by a stored count of seats taken and a rank computed from it, with a
# partial index for each of its orders, instead of counting every open table's seats on each page.

from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery

LOBBY_TABLES = models.Q(("practice", False), ("private", False), ("status", "open"))


def count_seats_taken(apps, schema_editor):
    """Every table's count set from its Seat rows (a table without one keeps the default 0)."""
    table_model = apps.get_model("games", "Table")
    seat_model = apps.get_model("games", "Seat")
    taken = (
        seat_model.objects.filter(table=OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(taken=Count("pk"))
        .values("taken")
    )
    table_model.objects.filter(pk__in=seat_model.objects.values("table")).update(seats_taken=Subquery(taken))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_table_event_time_bank"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="seats_taken",
            field=models.PositiveSmallIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="wait_rank",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Case(
                    models.When(seats_taken=0, then=models.Value(1)),
                    models.When(seats_taken__gte=models.F("seat_count"), then=models.Value(2)),
                    default=models.Value(0),
                ),
                output_field=models.PositiveSmallIntegerField(),
            ),
        ),
        migrations.RemoveIndex(model_name="table", name="table_lobby_open"),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(
                condition=LOBBY_TABLES, fields=["wait_rank", "stake", "id"], name="table_lobby_ranked"
            ),
        ),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(
                condition=LOBBY_TABLES, fields=["stake", "wait_rank", "id"], name="table_lobby_stake"
            ),
        ),
        migrations.AddIndex(
            model_name="table",
            index=models.Index(
                condition=LOBBY_TABLES,
                fields=["wait_rank", "-seats_taken", "stake", "id"],
                name="table_play_now",
            ),
        ),
        # Last: PostgreSQL builds no index on a table with row changes pending in the transaction.
        migrations.RunPython(count_seats_taken, migrations.RunPython.noop),
    ]
