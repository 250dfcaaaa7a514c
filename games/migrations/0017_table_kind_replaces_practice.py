# A table's kind (games.kinds) replaces the practice flag: practice tables become kind "practice", the
# others "cash"; the seats' practice chips become the table's own chips (any kind whose chips are
# not the wallet's). The lobby's indexes are built again on the kind.

from django.db import migrations, models

LOBBY_TABLES = models.Q(("kind__in", ["cash"]), ("private", False), ("status", "open"))
LOBBY_INDEXES = {
    "table_lobby_ranked": ["wait_rank", "stake", "id"],
    "table_lobby_stake": ["stake", "wait_rank", "id"],
    "table_play_now": ["wait_rank", "-seats_taken", "stake", "id"],
}


def kind_from_flag(apps, schema_editor):
    apps.get_model("games", "Table").objects.filter(practice=True).update(kind="practice")


def flag_from_kind(apps, schema_editor):
    apps.get_model("games", "Table").objects.filter(kind="practice").update(practice=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0016_hand_rows_keep_the_pot_won"),
    ]

    operations = [
        *(migrations.RemoveIndex(model_name="table", name=name) for name in LOBBY_INDEXES),
        migrations.AddField(
            model_name="table",
            name="kind",
            field=models.CharField(
                choices=[("cash", "cash"), ("practice", "practice")], default="cash", max_length=12
            ),
        ),
        # Built before any row changes (PostgreSQL builds no index on a table with row changes
        # pending in the transaction); the practice tables' rows leave them as they change below.
        *(
            migrations.AddIndex(
                model_name="table", index=models.Index(condition=LOBBY_TABLES, fields=fields, name=name)
            )
            for name, fields in LOBBY_INDEXES.items()
        ),
        migrations.RenameField(model_name="seat", old_name="practice_chips", new_name="table_chips"),
        migrations.RunPython(kind_from_flag, flag_from_kind),
        migrations.RemoveField(model_name="table", name="practice"),
    ]
