"""The server launcher (svara_site/serve.py): Daphne's own command line on uvloop."""

from __future__ import annotations

import asyncio

import pytest

from svara_site import serve


@pytest.fixture
def restore_policy():
    policy = asyncio.get_event_loop_policy()
    yield
    asyncio.set_event_loop_policy(policy)


def test_loops_made_after_the_policy_is_set_are_uvloops(restore_policy, monkeypatch):
    monkeypatch.delenv("SVARA_EVENT_LOOP", raising=False)

    assert serve.install_loop_policy() == "uvloop"
    loop = asyncio.new_event_loop()
    try:
        assert type(loop).__module__.startswith("uvloop")
    finally:
        loop.close()


def test_the_standard_loop_can_be_kept(restore_policy, monkeypatch):
    monkeypatch.setenv("SVARA_EVENT_LOOP", "asyncio")
    before = asyncio.get_event_loop_policy()

    assert serve.install_loop_policy() == "asyncio"
    assert asyncio.get_event_loop_policy() is before
