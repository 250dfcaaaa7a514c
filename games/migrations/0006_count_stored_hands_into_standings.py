from django.db import migrations
from django.db.models import Q


def count_stored_hands(apps, schema_editor):
    # The hands stored before the summary existed: counted as the settlement would have.
    from games.standings.rebuild import rebuild_standings

    # Tables had a practice flag then, not a kind (0017): practice hands are not counted.
    rebuild_standings(
        hand_player=apps.get_model("games", "HandPlayer"),
        standing=apps.get_model("games", "Standing"),
        tables=Q(hand__table__practice=False),
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0005_standings")]

    operations = [migrations.RunPython(count_stored_hands, migrations.RunPython.noop)]
