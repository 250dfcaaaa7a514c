"""The migrations describe the models as they are: a model change without its migration fails here,
not on a player's database."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_its_migration(capsys):
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1)
    except SystemExit:  # --check exits non-zero when a migration is missing
        pytest.fail(f"a migration is missing:\n{capsys.readouterr().out}")
