"""Settings from the environment: strict parsing, clear errors, embedded defaults.

With nothing set, pbem runs embedded: SQLite in `var/`, tasks in-process, mail saved as files.
Each setting that points at real infrastructure (PostgreSQL, Redis, SMTP) switches that part over.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

ENVIRONMENTS = ("development", "test", "production")

# The environment names every setting is read from; `create_app(overrides)` accepts the same names.
SETTING_NAMES = (
    "PBEM_ENV",
    "DATABASE_URL",
    "REDIS_URL",
    "SMTP_URL",
    "SECRET_KEY",
    "BASE_URL",
    "MAIL_FROM",
    "PBEM_OUTBOX_DIR",
    "PBEM_VAR_DIR",
    "PBEM_LINK_MAX_AGE_DAYS",
    "PBEM_SWEEP_SECONDS",
    "PBEM_MAIL_RETRY_SECONDS",
    "PBEM_MAIL_MAX_ATTEMPTS",
)


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it and says how to fix it."""


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    username: str | None
    password: str | None
    ssl: bool  # smtps:// (implicit TLS)
    starttls: bool  # smtp+starttls://


@dataclass(frozen=True)
class Settings:
    env: str
    database_url: str
    redis_url: str | None
    smtp: SmtpSettings | None
    secret_key: str | None
    base_url: str
    mail_from: str
    var_dir: Path
    outbox_dir: Path
    link_max_age_days: int
    sweep_seconds: int
    mail_retry_seconds: int
    mail_max_attempts: int

    @property
    def embedded_tasks(self) -> bool:
        """No broker: tasks run in-process right after the commit that made them."""
        return self.redis_url is None

    @property
    def mail_to_files(self) -> bool:
        return self.smtp is None

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def signing_key(self) -> str:
        """The key links are signed with; the app factory fills in the embedded one."""
        if self.secret_key is None:
            raise ConfigError("SECRET_KEY is not set; links cannot be signed")
        return self.secret_key


def load_settings(environ: Mapping[str, str]) -> Settings:
    """Read and check every setting; raise ConfigError naming the first bad one."""

    def get(name: str) -> str | None:
        value = environ.get(name)
        return value.strip() if value and value.strip() else None

    database_url = normalise_database_url(get("DATABASE_URL"), _var_dir(get("PBEM_VAR_DIR")))
    env = get("PBEM_ENV")
    if env is not None and env not in ENVIRONMENTS:
        raise ConfigError(f"PBEM_ENV={env!r} is not known; use one of {', '.join(ENVIRONMENTS)}")
    secret_key = get("SECRET_KEY")
    _check_secret(secret_key, env, database_url)
    var_dir = _var_dir(get("PBEM_VAR_DIR"))
    outbox = get("PBEM_OUTBOX_DIR")
    return Settings(
        env=env or ("development" if database_url.startswith("sqlite") else "production"),
        database_url=database_url,
        redis_url=_redis_url(get("REDIS_URL")),
        smtp=parse_smtp_url(get("SMTP_URL")),
        secret_key=secret_key,
        base_url=_base_url(get("BASE_URL")),
        mail_from=get("MAIL_FROM") or "pbem <pbem@localhost>",
        var_dir=var_dir,
        outbox_dir=Path(outbox).absolute() if outbox else var_dir / "outbox",
        link_max_age_days=_positive_int(
            "PBEM_LINK_MAX_AGE_DAYS", get("PBEM_LINK_MAX_AGE_DAYS"), 90
        ),
        sweep_seconds=_positive_int("PBEM_SWEEP_SECONDS", get("PBEM_SWEEP_SECONDS"), 30),
        mail_retry_seconds=_positive_int(
            "PBEM_MAIL_RETRY_SECONDS", get("PBEM_MAIL_RETRY_SECONDS"), 10
        ),
        mail_max_attempts=_positive_int(
            "PBEM_MAIL_MAX_ATTEMPTS", get("PBEM_MAIL_MAX_ATTEMPTS"), 12
        ),
    )


def embedded_secret(var_dir: Path) -> str:
    """A key kept in `var/secret_key` so embedded links survive restarts; made on first use."""
    path = var_dir / "secret_key"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _var_dir(value: str | None) -> Path:
    return Path(value or "var").absolute()


def normalise_database_url(value: str | None, var_dir: Path) -> str:
    """SQLAlchemy URL; `postgres://` and `postgresql://` are pinned to the psycopg 3 driver."""
    if value is None:
        return f"sqlite:///{var_dir / 'pbem.db'}"
    for prefix in ("postgres://", "postgresql://"):
        if value.startswith(prefix):
            return "postgresql+psycopg://" + value[len(prefix) :]
    if value.startswith(("postgresql+", "sqlite:")):
        return value
    raise ConfigError(
        f"DATABASE_URL={value!r} is not supported; use postgresql://user:pass@host/db "
        "or sqlite:///path/to/file.db"
    )


def _check_secret(secret_key: str | None, env: str | None, database_url: str) -> None:
    # A shared database means links are trusted across machines: a made-up key would let anyone
    # who reads the source forge them, so we refuse instead of defaulting.
    production = env == "production" or (
        env not in ("development", "test") and not database_url.startswith("sqlite")
    )
    if production and secret_key is None:
        raise ConfigError(
            "SECRET_KEY is not set. pbem signs every link in its emails with it, so a production "
            "start needs one: set SECRET_KEY to a long random string, e.g. the output of\n"
            "  python -c 'import secrets; print(secrets.token_urlsafe(32))'\n"
            "(or set PBEM_ENV=development to try pbem against this database with a throwaway key)."
        )
    if secret_key is not None and production and len(secret_key) < 16:
        raise ConfigError("SECRET_KEY is too short for production; use at least 16 characters")


def _redis_url(value: str | None) -> str | None:
    if value is not None and urlsplit(value).scheme not in ("redis", "rediss"):
        raise ConfigError(f"REDIS_URL={value!r} must start with redis:// or rediss://")
    return value


def parse_smtp_url(value: str | None) -> SmtpSettings | None:
    """`smtp://user:pass@host:port`, `smtps://…` (TLS) or `smtp+starttls://…`; None = files."""
    if value is None:
        return None
    parts = urlsplit(value)
    schemes = {"smtp": 25, "smtps": 465, "smtp+starttls": 587}
    if parts.scheme not in schemes:
        raise ConfigError(
            f"SMTP_URL={value!r} must start with smtp://, smtps:// or smtp+starttls://"
        )
    if not parts.hostname:
        raise ConfigError(f"SMTP_URL={value!r} names no host; e.g. smtp://mail.example.org:25")
    try:
        port = parts.port or schemes[parts.scheme]
    except ValueError as exc:
        raise ConfigError(f"SMTP_URL={value!r} has a bad port") from exc
    return SmtpSettings(
        host=parts.hostname,
        port=port,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        ssl=parts.scheme == "smtps",
        starttls=parts.scheme == "smtp+starttls",
    )


def _base_url(value: str | None) -> str:
    url = value or "http://127.0.0.1:5000"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"BASE_URL={url!r} must be an absolute http(s) URL")
    return url.rstrip("/")


def _positive_int(name: str, value: str | None, default: int) -> int:
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number <= 0:
        raise ConfigError(f"{name}={value!r} must be a positive whole number")
    return number
