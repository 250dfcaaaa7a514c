# Seed series (one secret server seed for a run of a table's hands) and the hands' hash chain.
# Hands stored before keep no series (their seeds were revealed when each ended, and stay so) and
# empty chain hashes: the chain starts at each table's first hand settled after this migration.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0003_staff_permissions_and_table_events'),
    ]

    operations = [
        migrations.CreateModel(
            name='SeedSeries',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('server_seed_hash', models.CharField(max_length=64)),
                ('server_seed', models.CharField(max_length=64)),
                ('started_at', models.DateTimeField()),
                ('revealed_at', models.DateTimeField(blank=True, null=True)),
                ('end_reason', models.CharField(blank=True, choices=[('left', 'the last player left'), ('closed', 'the table was closed'), ('expired', '24 hours passed')], max_length=10)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='seed_series', to='games.table')),
            ],
            options={
                'ordering': ['table', 'number'],
                'constraints': [
                    models.UniqueConstraint(fields=('table', 'number'), name='one_series_number_per_table'),
                    models.UniqueConstraint(condition=models.Q(('revealed_at__isnull', True)), fields=('table',), name='one_open_series_per_table'),
                ],
            },
        ),
        migrations.AddField(
            model_name='playedhand',
            name='series',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='hands', to='games.seedseries'),
        ),
        migrations.AddField(
            model_name='playedhand',
            name='prev_hash',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='playedhand',
            name='chain_hash',
            field=models.CharField(blank=True, max_length=64),
        ),
    ]
