"""The benchmarks' harness: its commands run in a subprocess against a database of their own."""

from __future__ import annotations

import uuid

import pytest

from bench import harness


@pytest.mark.timeout(300)
def test_a_command_takes_arguments_larger_than_the_command_line_allows(tmp_path):
    """1,600 tables' players failed with "Argument list too long": one argument is limited to
    128 KiB on Linux. 40,000 user ids are about 320 KB of JSON."""
    database_url = f"sqlite:///{tmp_path / 'harness.sqlite3'}"
    env = harness.server_env(database_url=database_url, redis_url=None, prefix=f"t:{uuid.uuid4().hex}:")
    harness.manage(env, "migrate", "--noinput")
    users = list(range(10_000_000, 10_040_000))

    done = harness.django_call(env, "fund", users=users, chips=1)

    assert done == {"funded": len(users)}
