"""Error reporting through the settings (svara_site/config.py): ADMINS by e-mail, Sentry when asked."""

from __future__ import annotations

import warnings

import pytest

from svara_site import config


def test_server_errors_are_mailed_to_the_admins_only_when_there_are_some() -> None:
    with_admins = config.logging_config(level="info", mail_admins=True)
    assert with_admins["loggers"]["django.request"]["handlers"] == ["mail_admins"]  # type: ignore[index]
    assert with_admins["handlers"]["mail_admins"]["class"] == "django.utils.log.AdminEmailHandler"  # type: ignore[index]
    without = config.logging_config(level="INFO", mail_admins=False)
    assert without["loggers"]["django.request"]["handlers"] == []  # type: ignore[index]
    assert "mail_admins" not in without["handlers"]  # type: ignore[operator]


def test_admins_are_read_as_names_and_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMINS", "Ann Ops <ann@example.com>, bob@example.com")
    assert config.admins() == [("Ann Ops", "ann@example.com"), ("bob@example.com", "bob@example.com")]
    monkeypatch.setenv("ADMINS", "")
    assert config.admins() == []


def test_sentry_is_off_unless_a_dsn_is_given() -> None:
    import sentry_sdk

    assert config.init_sentry("", environment="test") is False
    assert not sentry_sdk.get_client().is_active()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no deprecated option: the SDK warns once per process
            assert config.init_sentry("https://public@o0.ingest.sentry.invalid/1", environment="test") is True
        client = sentry_sdk.get_client()
        assert client.is_active() and client.options["data_collection"]["user_info"] is False
    finally:
        sentry_sdk.init(dsn=None)  # off again: nothing of this test is ever sent
    with pytest.raises(SystemExit, match="SENTRY_DSN"):
        config.init_sentry("not-a-dsn", environment="test")
