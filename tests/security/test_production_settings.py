"""A production start refuses what would leak: a guessable SECRET_KEY, mail saved to files, and
the /outbox page that lists every link pbem sent."""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

import pytest

from pbem.config import ConfigError, load_settings
from pbem.extensions import db
from tests.conftest import make_app

STRONG = secrets.token_urlsafe(32)
HOW = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


@pytest.mark.parametrize(
    "key",
    [
        "_" * 19,
        "_" * 40,
        "changeme",
        "changeme-changeme-changeme-changeme",
        "CHANGE_ME_in_production_0123456789abcdef",
        "my-super-secret-key-for-pbem-in-2024",
        "x" * 64,
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "0123456789abcdef0123456789abcdef",
        "ab12" * 10,
        "Kq3x9LmT2vR8pZ4wYb7N",  # random but short
    ],
)
def test_a_weak_secret_key_is_refused(key: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings({"PBEM_ENV": "production", "SECRET_KEY": key, "SMTP_URL": "smtp://mail"})
    message = str(refused.value)
    assert message.startswith("SECRET_KEY is too weak for production") and HOW in message


def test_postgres_without_pbem_env_is_production_too() -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY is too weak"):
        load_settings(
            {"DATABASE_URL": "postgresql://u@h/db", "SECRET_KEY": "_" * 19, "SMTP_URL": "smtp://m"}
        )


def test_production_without_smtp_is_refused(tmp_path: Path) -> None:
    # Before: pbem started, saved every invitation into files and listed them at /outbox.
    with pytest.raises(ConfigError) as refused:
        make_app(tmp_path, PBEM_ENV="production", SECRET_KEY=STRONG, SMTP_URL=None)
    message = str(refused.value)
    assert message.startswith("SMTP_URL is not set") and "smtp+starttls://" in message
    assert "PBEM_ENV=development" in message


def test_a_strong_key_and_smtp_start_production(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, PBEM_ENV="production", SECRET_KEY=STRONG, SMTP_URL="smtp://127.0.0.1:9"
    )
    assert app.config["PBEM"].env == "production" and not app.testing


def test_no_outbox_page_in_production_whatever_the_mail(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, PBEM_ENV="production", SECRET_KEY=STRONG, SMTP_URL="smtp://127.0.0.1:9"
    )
    with app.app_context():
        db.create_all()
    client = app.test_client()
    assert client.get("/outbox").status_code == 404
    # Production with mail in files (settings changed after the start checks): still no page.
    (tmp_path / "outbox").mkdir()
    app.config["PBEM"] = dataclasses.replace(app.config["PBEM"], smtp=None)
    response = client.get("/outbox")
    assert response.status_code == 404 and "outbox" not in response.text.lower()
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("env", ["development", "test"])
def test_the_outbox_page_stays_in_development_and_test(tmp_path: Path, env: str) -> None:
    app = make_app(tmp_path, PBEM_ENV=env)
    assert app.test_client().get("/outbox").status_code == 200
