"""Settings from the environment: strict parsing, clear errors, embedded defaults.

With nothing set, pbem runs embedded: SQLite in `var/`, tasks in-process, mail saved as files.
Each setting that points at real infrastructure (PostgreSQL, Redis, SMTP) switches that part over.
"""

from __future__ import annotations

import math
import re
import secrets
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pbem import served_address

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
    "PBEM_RATE_LIMITS",
    "PBEM_LIMIT_GAMES_PER_CLIENT",
    "PBEM_LIMIT_GAMES_PER_ORGANISER",
    "PBEM_LIMIT_INVITATIONS_PER_RECIPIENT",
    "PBEM_LIMIT_SIGNIN_PER_ADDRESS",
    "PBEM_LIMIT_SIGNIN_PER_CLIENT",
    "PBEM_TRUSTED_PROXIES",
    "PBEM_DEFAULT_CLOCK",
    "PBEM_CLOCK_SECONDS",
    "PBEM_CLOCK_DOWNTIME_SECONDS",
    "PBEM_CLOCK_MIN_SECONDS",
    "PBEM_REMINDER_HOURS",
    "PBEM_VACATION_DAYS_PER_YEAR",
    "PBEM_INVITATION_DAYS",
    "PBEM_MAIL_PICTURES",
    "PBEM_PICTURE_TIMEOUT_SECONDS",
    "PBEM_MAIL_KEEP_DAYS",
    "PBEM_DKIM_KEY_FILE",
    "PBEM_DKIM_SELECTOR",
    "PBEM_DIGEST_HOUR",
    "PBEM_BOT_SECONDS",
    "PBEM_MAIL_AUTHSERV_ID",
    "PBEM_METRICS_TOKEN",
    "PBEM_METRICS_PORT",
    "PBEM_METRICS_HOST",
    "PBEM_METRICS_DIR",
    "PBEM_LOG_FORMAT",
)

# Rate limits in the `limits` library's notation ("10 per hour", several joined by ";").
LIMIT_DEFAULTS = {
    "PBEM_LIMIT_GAMES_PER_CLIENT": "10 per hour;30 per day",
    "PBEM_LIMIT_GAMES_PER_ORGANISER": "10 per hour;30 per day",
    "PBEM_LIMIT_INVITATIONS_PER_RECIPIENT": "5 per day",
    "PBEM_LIMIT_SIGNIN_PER_ADDRESS": "3 per hour;10 per day",
    "PBEM_LIMIT_SIGNIN_PER_CLIENT": "10 per hour;50 per day",
}


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
class RateLimits:
    """How much one client, organiser or address may ask of pbem (`pbem.web.ratelimits`)."""

    enabled: bool
    games_per_client: str
    games_per_organiser: str
    invitations_per_recipient: str
    signin_per_address: str
    signin_per_client: str


@dataclass(frozen=True)
class ClockSettings:
    """Time: the default clock, the clock task's period, reminders, vacations, invitations."""

    default_clock: str  # as `pbem new-game --clock` takes it (pbem.domain.clocks.parse_clock)
    period_seconds: int  # how often the clock task runs
    # A gap since the clock task's last run longer than this is downtime: deadlines move on.
    downtime_seconds: int
    # The shortest time per move (or Fischer bank) a game may be created with.
    min_move_seconds: float
    reminder_hours: tuple[float, ...]  # before a deadline, largest first
    vacation_days_per_year: float  # accrued monthly, the balance capped at a year's worth
    invitation_days: float  # an invitation lapses this long after the organiser's confirmation


@dataclass(frozen=True)
class MailSettings:
    """What goes into mail besides its text: pictures, signatures, the digest's hour."""

    pictures: bool  # turn and result emails carry a picture of the board
    # A turn email waits this long for its picture, then goes without it.
    picture_timeout_seconds: float
    dkim_key_file: Path | None  # a PEM private key: messages are DKIM-signed with it
    dkim_selector: str  # the DNS selector its public key is published under
    digest_hour: int  # the hour of the day (the player's zone, else UTC) a digest goes at
    # The authserv-id of the MTA in front of `pbem mail-in`: replies are checked against the
    # Authentication-Results it adds (pbem.mailin.authentication). None: not checked.
    authserv_id: str | None = None
    # A delivered email keeps its text and HTML this many days, then only its record.
    keep_days: int = 30


@dataclass(frozen=True)
class OpsSettings:
    """What the operator's monitoring reads: metrics (`pbem.ops.metrics`) and the logs' shape."""

    # The bearer token /metrics asks for; None: /metrics is not served (404).
    metrics_token: str | None = None
    # Where each worker host serves its processes' counters; None: not served.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # The processes of one host share their counters here (prometheus-client's multiprocess
    # mode, a subfolder per role); None: each process counts alone (the embedded default).
    metrics_dir: Path | None = None
    log_format: str = "text"  # or json: one JSON object a line (pbem.logs)


LOG_FORMATS = ("text", "json")
# A token anyone could guess would open the figures to them.
MIN_METRICS_TOKEN = 16


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
    rate_limits: RateLimits
    # How many proxies in front of pbem set X-Forwarded-For; 0 when clients connect directly.
    trusted_proxies: int
    clocks: ClockSettings
    mail: MailSettings
    # How long a bot thinks about a move or a draw offer (pbem.bots), in seconds.
    bot_seconds: float = 2.0
    ops: OpsSettings = OpsSettings()

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
    _check_smtp(get("SMTP_URL"), env, database_url)
    var_dir = _var_dir(get("PBEM_VAR_DIR"))
    outbox = get("PBEM_OUTBOX_DIR")
    return Settings(
        env=env or ("development" if database_url.startswith("sqlite") else "production"),
        database_url=database_url,
        redis_url=_redis_url(get("REDIS_URL")),
        smtp=parse_smtp_url(get("SMTP_URL")),
        secret_key=secret_key,
        base_url=_base_url(get("BASE_URL"), var_dir),
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
        rate_limits=RateLimits(
            enabled=_switch("PBEM_RATE_LIMITS", get("PBEM_RATE_LIMITS"), True),
            **{
                name.removeprefix("PBEM_LIMIT_").lower(): _limits(name, get(name) or default)
                for name, default in LIMIT_DEFAULTS.items()
            },
        ),
        trusted_proxies=_count("PBEM_TRUSTED_PROXIES", get("PBEM_TRUSTED_PROXIES"), 0),
        clocks=_clock_settings(get),
        mail=_mail_settings(get),
        bot_seconds=_bot_seconds(get("PBEM_BOT_SECONDS")),
        ops=_ops_settings(get, var_dir, shared=get("REDIS_URL") is not None),
    )


def _ops_settings(get: Callable[[str], str | None], var_dir: Path, shared: bool) -> OpsSettings:
    token = get("PBEM_METRICS_TOKEN")
    if token is not None and len(token) < MIN_METRICS_TOKEN:
        raise ConfigError(
            f"PBEM_METRICS_TOKEN is {len(token)} characters long; give at least "
            f'{MIN_METRICS_TOKEN} (python -c "import secrets; print(secrets.token_urlsafe(32))")'
        )
    port = get("PBEM_METRICS_PORT")
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        raise ConfigError(f"PBEM_METRICS_PORT={port!r} is not a TCP port (1 to 65535)")
    log_format = (get("PBEM_LOG_FORMAT") or "text").lower()
    if log_format not in LOG_FORMATS:
        raise ConfigError(f"PBEM_LOG_FORMAT={log_format!r} must be text or json")
    folder = get("PBEM_METRICS_DIR")
    # With workers (Redis), several processes count: they share a folder by default.
    metrics_dir = Path(folder).absolute() if folder else (var_dir / "metrics" if shared else None)
    return OpsSettings(
        metrics_token=token,
        metrics_port=int(port) if port else None,
        metrics_host=get("PBEM_METRICS_HOST") or "127.0.0.1",
        metrics_dir=metrics_dir,
        log_format=log_format,
    )


# A bot's turn is not on the clock; this keeps one from holding a bot worker for long.
MAX_BOT_SECONDS = 60.0


def _bot_seconds(value: str | None) -> float:
    seconds = _positive_number("PBEM_BOT_SECONDS", value, 2.0)
    if seconds > MAX_BOT_SECONDS:
        raise ConfigError(
            f"PBEM_BOT_SECONDS={value!r}: a bot thinks for at most {MAX_BOT_SECONDS:g} seconds "
            "a move (more only keeps its players waiting)"
        )
    return seconds


_SELECTOR_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def _mail_settings(get: Callable[[str], str | None]) -> MailSettings:
    key_file = get("PBEM_DKIM_KEY_FILE")
    key_path = Path(key_file).expanduser().absolute() if key_file else None
    if key_path is not None and not key_path.is_file():
        raise ConfigError(
            f"PBEM_DKIM_KEY_FILE={key_file!r} is not a file; give the path of the PEM private "
            "key to sign mail with, or leave it unset to send unsigned mail"
        )
    selector = get("PBEM_DKIM_SELECTOR") or "pbem"
    if not _SELECTOR_RE.fullmatch(selector):
        raise ConfigError(
            f"PBEM_DKIM_SELECTOR={selector!r} is not a DNS label (letters, digits and hyphens)"
        )
    hour = _count("PBEM_DIGEST_HOUR", get("PBEM_DIGEST_HOUR"), 7)
    if hour > 23:
        raise ConfigError(f"PBEM_DIGEST_HOUR={hour} is not an hour of the day (0 to 23)")
    return MailSettings(
        pictures=_switch("PBEM_MAIL_PICTURES", get("PBEM_MAIL_PICTURES"), True),
        picture_timeout_seconds=_positive_number(
            "PBEM_PICTURE_TIMEOUT_SECONDS", get("PBEM_PICTURE_TIMEOUT_SECONDS"), 5.0
        ),
        dkim_key_file=key_path,
        dkim_selector=selector,
        digest_hour=hour,
        authserv_id=_authserv_id(get("PBEM_MAIL_AUTHSERV_ID")),
        keep_days=_positive_int("PBEM_MAIL_KEEP_DAYS", get("PBEM_MAIL_KEEP_DAYS"), 30),
    )


# An authserv-id as MTAs write it: a host name, or any RFC 2045 token. Whitespace, quotes and
# the header's delimiters could never match one.
_AUTHSERV_ID_RE = re.compile(r"[!#-'*+\-.0-9A-Z^-~]{1,255}")


def _authserv_id(value: str | None) -> str | None:
    if value is None:
        return None
    if not _AUTHSERV_ID_RE.fullmatch(value):
        raise ConfigError(
            f"PBEM_MAIL_AUTHSERV_ID={value!r} is not an authserv-id: give the name your mail "
            "server writes first in the Authentication-Results it adds (usually its host name, "
            "e.g. mx.example.org), or leave it unset not to check them"
        )
    return value


def _clock_settings(get: Callable[[str], str | None]) -> ClockSettings:
    from pbem.domain.clocks import ClockError, allowance, initial_bank, parse_clock

    default_clock = get("PBEM_DEFAULT_CLOCK") or "days:3"
    try:
        clock = parse_clock(default_clock)
    except ClockError as exc:
        raise ConfigError(f"PBEM_DEFAULT_CLOCK={default_clock!r}: {exc}") from exc
    period = _positive_int("PBEM_CLOCK_SECONDS", get("PBEM_CLOCK_SECONDS"), 60)
    downtime = _positive_int("PBEM_CLOCK_DOWNTIME_SECONDS", get("PBEM_CLOCK_DOWNTIME_SECONDS"), 600)
    if downtime <= period:
        # Every run would find "downtime" since the last and push every deadline back by it.
        raise ConfigError(
            f"PBEM_CLOCK_DOWNTIME_SECONDS ({downtime}) must be more than PBEM_CLOCK_SECONDS "
            f"({period}), the time between two runs of the clock task"
        )
    shortest = _positive_number("PBEM_CLOCK_MIN_SECONDS", get("PBEM_CLOCK_MIN_SECONDS"), 3600.0)
    default_allows = allowance(clock, initial_bank(clock))
    if default_allows is not None and default_allows < shortest:
        raise ConfigError(
            f"PBEM_DEFAULT_CLOCK={default_clock!r} is shorter than PBEM_CLOCK_MIN_SECONDS "
            f"({shortest:g} seconds): no game could be created with it"
        )
    return ClockSettings(
        default_clock=default_clock,
        period_seconds=period,
        downtime_seconds=downtime,
        min_move_seconds=shortest,
        reminder_hours=_hours("PBEM_REMINDER_HOURS", get("PBEM_REMINDER_HOURS") or "24,2"),
        vacation_days_per_year=_positive_number(
            "PBEM_VACATION_DAYS_PER_YEAR", get("PBEM_VACATION_DAYS_PER_YEAR"), 14.0
        ),
        invitation_days=_positive_number("PBEM_INVITATION_DAYS", get("PBEM_INVITATION_DAYS"), 7.0),
    )


def _positive_number(name: str, value: str | None, default: float) -> float:
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not 0 < number < float("inf"):
        raise ConfigError(f"{name}={value!r} must be a positive number")
    return number


def _hours(name: str, value: str) -> tuple[float, ...]:
    """Hours before a deadline, such as "24,2"; "none" for no reminders."""
    if value.lower() == "none":
        return ()
    hours = [_positive_number(name, part.strip(), 0.0) for part in value.split(",")]
    return tuple(sorted(set(hours), reverse=True))


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


def _production(env: str | None, database_url: str) -> bool:
    return env == "production" or (
        env not in ("development", "test") and not database_url.startswith("sqlite")
    )


_MAKE_A_KEY = (
    "set SECRET_KEY to a long random string, e.g. the output of\n"
    '  python -c "import secrets; print(secrets.token_urlsafe(32))"'
)

# Words that mark a key copied from an example or typed in by hand.
_PLACEHOLDERS = ("changeme", "changethis", "secret", "password", "example", "default", "replace")


def _check_secret(secret_key: str | None, env: str | None, database_url: str) -> None:
    # A shared database means links are trusted across machines: a made-up key would let anyone
    # who reads the source forge them, so we refuse instead of defaulting.
    if not _production(env, database_url):
        return
    if secret_key is None:
        raise ConfigError(
            "SECRET_KEY is not set. pbem signs every link in its emails with it, so a production "
            f"start needs one: {_MAKE_A_KEY}\n"
            "(or set PBEM_ENV=development to try pbem against this database with a throwaway key)."
        )
    weakness = secret_weakness(secret_key)
    if weakness is not None:
        raise ConfigError(
            f"SECRET_KEY is too weak for production: {weakness}. Whoever guesses it can forge "
            f"every link pbem sends; {_MAKE_A_KEY}"
        )


def secret_weakness(key: str) -> str | None:
    """Why `key` is guessable, or None.

    The thresholds let through `secrets.token_urlsafe(32)`, `token_hex(16)` and longer, and
    `openssl rand -base64 32`, and refuse keys typed by hand.
    """
    if len(key) < 32:
        return f"it has {len(key)} characters, at least 32 are needed"
    folded = "".join(ch for ch in key.lower() if ch.isalnum())
    for word in _PLACEHOLDERS:
        if word in folded:
            return f"it contains {word!r}, a placeholder rather than a random string"
    distinct = len(set(key))
    if distinct < 8:
        return f"it uses only {distinct} different character{'s' if distinct > 1 else ''}"
    # Neighbours equal or one apart ("aaaa", "abcd", "1234"): about one pair in five in a random
    # hex key, nearly every pair in a typed run.
    runs = sum(abs(ord(a) - ord(b)) <= 1 for a, b in pairwise(key))
    if runs > 0.6 * (len(key) - 1):
        return "it is mostly runs of the same or consecutive characters"
    # Shannon entropy of the key's own character frequencies: about 5 bits a character for
    # token_urlsafe, 3.7 for hex, far less for repeated words and patterns.
    counts = Counter(key).values()
    per_char = -sum(n / len(key) * math.log2(n / len(key)) for n in counts)
    if per_char < 3.0:
        return f"its characters repeat too much to be random ({per_char:.1f} bits each)"
    return None


def _check_smtp(smtp_url: str | None, env: str | None, database_url: str) -> None:
    # Without SMTP, mail is saved to files on this machine: in production nobody would get their
    # links, and whoever can read the folder could take every seat.
    if smtp_url is None and _production(env, database_url):
        raise ConfigError(
            "SMTP_URL is not set. In production pbem must send its mail; without SMTP_URL it "
            "would only save it to files on this machine. Set SMTP_URL to your mail server, "
            "e.g. smtp+starttls://user:password@mail.example.org:587 (or smtps://…:465, "
            "smtp://…:25), or set PBEM_ENV=development to keep mail in files."
        )


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


DEFAULT_BASE_URL = "http://127.0.0.1:5000"


def _base_url(value: str | None, var_dir: Path) -> str:
    """BASE_URL; unset, the address `pbem serve` recorded in the var dir (so that mail written by
    any other command links to the running server), else the default."""
    if value is None:
        return served_address.recorded(var_dir) or DEFAULT_BASE_URL
    if not served_address.is_absolute_http(value):
        raise ConfigError(
            f"BASE_URL={value!r} must be an absolute http(s) URL, e.g. https://pbem.example.org"
        )
    return value.rstrip("/")


def _switch(name: str, value: str | None, default: bool) -> bool:
    if value is None:
        return default
    words = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
    if value.lower() not in words:
        raise ConfigError(f"{name}={value!r} must be on or off")
    return words[value.lower()]


def _limits(name: str, value: str) -> str:
    """A limit string the `limits` library reads, such as "10 per hour;30 per day"."""
    from limits import parse_many

    try:
        if parse_many(value):
            return value
    except ValueError:
        pass
    raise ConfigError(
        f"{name}={value!r} is not a rate limit; write e.g. '10 per hour' or "
        "'10 per hour;30 per day'"
    )


def _count(name: str, value: str | None, default: int) -> int:
    if value is None:
        return default
    if not value.isdigit():
        raise ConfigError(f"{name}={value!r} must be a whole number (0 or more)")
    return int(value)


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
