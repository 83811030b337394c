"""Settings: embedded defaults, strict parsing, and no production start without a strong secret
and real mail."""

from __future__ import annotations

import logging
import secrets
import stat
from pathlib import Path

import pytest

from pbem import served_address
from pbem.app import create_app
from pbem.config import ConfigError, load_settings, parse_smtp_url, secret_weakness

# What a production start needs besides its database.
PRODUCTION = {"SECRET_KEY": secrets.token_urlsafe(32), "SMTP_URL": "smtp://mail.example.org"}


def test_nothing_set_means_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings({})
    assert settings.database_url == f"sqlite:///{tmp_path / 'var' / 'pbem.db'}"
    assert settings.embedded_tasks and settings.mail_to_files
    assert settings.outbox_dir == tmp_path / "var" / "outbox"
    assert settings.base_url == "http://127.0.0.1:5000"
    assert settings.env == "development"


def test_embedded_app_keeps_a_secret_in_var(tmp_path: Path) -> None:
    env = {"PBEM_VAR_DIR": str(tmp_path), "SECRET_KEY": None, "PBEM_ENV": None}
    first = create_app({**env, "DATABASE_URL": None})
    second = create_app({**env, "DATABASE_URL": None})
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert len(first.config["SECRET_KEY"]) >= 32


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql://u:p@h:5432/db", "postgresql+psycopg://u:p@h:5432/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
    ],
)
def test_postgres_urls_use_psycopg_3(url: str, expected: str) -> None:
    settings = load_settings({"DATABASE_URL": url, **PRODUCTION})
    assert settings.database_url == expected
    assert settings.env == "production"


def test_production_without_secret_is_refused() -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY is not set"):
        load_settings({"PBEM_ENV": "production"})


def test_postgres_without_secret_is_refused_unless_development() -> None:
    url = "postgresql://u@h/db"
    with pytest.raises(ConfigError, match="SECRET_KEY is not set"):
        load_settings({"DATABASE_URL": url})
    assert load_settings({"DATABASE_URL": url, "PBEM_ENV": "development"}).secret_key is None


def test_production_needs_a_strong_secret_and_smtp() -> None:
    settings = load_settings({"PBEM_ENV": "production", **PRODUCTION})
    assert settings.env == "production" and settings.smtp is not None
    with pytest.raises(ConfigError, match="SMTP_URL is not set"):
        load_settings(
            {"DATABASE_URL": "postgresql://u@h/db", "SECRET_KEY": PRODUCTION["SECRET_KEY"]}
        )
    # Development and test keep their embedded mail and any key.
    assert load_settings({"PBEM_ENV": "test", "SECRET_KEY": "short"}).smtp is None


def test_keys_made_as_the_message_says_always_pass() -> None:
    made = [secrets.token_urlsafe(32) for _ in range(2000)] + [
        secrets.token_hex(32) for _ in range(2000)
    ]
    assert [key for key in made if secret_weakness(key)] == []


def test_create_app_refuses_production_without_secret() -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY"):
        create_app({"PBEM_ENV": "production", "SECRET_KEY": None})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PBEM_ENV": "staging"}, "PBEM_ENV"),
        ({"DATABASE_URL": "mysql://h/db"}, "DATABASE_URL"),
        ({"REDIS_URL": "http://h"}, "REDIS_URL"),
        ({"SMTP_URL": "http://h"}, "SMTP_URL"),
        ({"BASE_URL": "pbem.example.org"}, "BASE_URL"),
        ({"PBEM_SWEEP_SECONDS": "soon"}, "PBEM_SWEEP_SECONDS"),
        ({"PBEM_LINK_MAX_AGE_DAYS": "0"}, "PBEM_LINK_MAX_AGE_DAYS"),
        ({"PBEM_MAIL_AUTHSERV_ID": "mx.example.org; spf=pass"}, "PBEM_MAIL_AUTHSERV_ID"),
        ({"PBEM_ENV": "production", "SECRET_KEY": "short"}, "SECRET_KEY is too weak"),
        ({"PBEM_ENV": "production", "SECRET_KEY": PRODUCTION["SECRET_KEY"]}, "SMTP_URL is not set"),
    ],
)
def test_bad_settings_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(env)


def test_the_authserv_id_is_off_unless_set() -> None:
    assert load_settings({}).mail.authserv_id is None
    settings = load_settings({"PBEM_MAIL_AUTHSERV_ID": " mx.example.org "})
    assert settings.mail.authserv_id == "mx.example.org"
    with pytest.raises(ConfigError, match="usually its host name"):
        load_settings({"PBEM_MAIL_AUTHSERV_ID": "mx example"})


def test_smtp_url_forms() -> None:
    plain = parse_smtp_url("smtp://user%40x:p%3Ass@mail.example.org:2525")
    assert plain is not None
    assert (plain.host, plain.port, plain.username, plain.password) == (
        "mail.example.org",
        2525,
        "user@x",
        "p:ss",
    )
    assert not plain.ssl and not plain.starttls
    tls = parse_smtp_url("smtps://mail.example.org")
    assert tls is not None and tls.ssl and tls.port == 465
    starttls = parse_smtp_url("smtp+starttls://mail.example.org")
    assert starttls is not None and starttls.starttls and starttls.port == 587
    assert parse_smtp_url(None) is None


def test_the_address_pbem_serve_recorded_is_the_default_base_url(tmp_path: Path) -> None:
    var = {"PBEM_VAR_DIR": str(tmp_path)}
    served_address.record(tmp_path, "http://127.0.0.1:5000")
    served_address.record(tmp_path, "http://127.0.0.1:8080")  # the last one counts
    assert load_settings(var).base_url == "http://127.0.0.1:8080"
    given = load_settings({**var, "BASE_URL": "https://pbem.example.org/"})
    assert given.base_url == "https://pbem.example.org"
    # Written whole through a file of its own, which is gone; readable by an MTA's user.
    assert [path.name for path in tmp_path.iterdir()] == ["base_url.json"]
    assert stat.S_IMODE((tmp_path / "base_url.json").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    "content",
    [
        b"http://127.0.0.1:8080\n",
        b'{"base_url": "http://127.0.0.1:8080"',
        b'["http://127.0.0.1:8080"]',
        b"{}",
        b'{"base_url": 8080}',
        b'{"base_url": "127.0.0.1:8080"}',
        b'{"base_url": "ftp://127.0.0.1/"}',
        b"\xff\xfe{}",
        b"[" * 3000 + b"]" * 3000,
        b'{"base_url": "http://127.0.0.1:8080"}' + b" " * 5000,
    ],
)
def test_a_broken_or_foreign_record_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    (tmp_path / "base_url.json").write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="pbem.served_address"):
        settings = load_settings({"PBEM_VAR_DIR": str(tmp_path)})
    assert settings.base_url == "http://127.0.0.1:5000"
    assert f"ignoring {tmp_path / 'base_url.json'}: " in caplog.text
    assert "delete the file, or start `pbem serve` to write it again" in caplog.text


def test_a_record_that_cannot_be_read_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "base_url.json").mkdir()
    with caplog.at_level(logging.WARNING, logger="pbem.served_address"):
        assert load_settings({"PBEM_VAR_DIR": str(tmp_path)}).base_url == "http://127.0.0.1:5000"
    assert "it cannot be read" in caplog.text
    caplog.clear()
    assert load_settings({"PBEM_VAR_DIR": str(tmp_path / "none")}).base_url.endswith(":5000")
    assert caplog.text == ""  # no record is no news
