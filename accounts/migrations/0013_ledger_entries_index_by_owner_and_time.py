from django.db import migrations, models


class Migration(migrations.Migration):
    # Its own migration (its own transaction on PostgreSQL): the owners written by the previous one
    # queue foreign-key checks until their commit, and an index cannot be built over them before.

    dependencies = [
        ("accounts", "0012_ledger_entries_carry_owner_and_time"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="ledgerentry",
            index=models.Index(fields=["owner", "-created_at", "-id"], name="ledgerentry_owner_recent"),
        ),
    ]
