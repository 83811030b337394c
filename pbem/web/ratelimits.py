"""Rate limits: how many games one client or organiser may start, how often one address may be
invited or sent a sign-in link, so that nobody can use pbem to flood a mailbox.

The views call the checks before doing the work; a check that refuses raises `RateLimited`
(429, with `Retry-After`). Counters live in Redis when `REDIS_URL` is set, so that every web
process shares them, and in this process's memory otherwise. The limits themselves are settings
(`pbem.config.RateLimits`); `PBEM_RATE_LIMITS=off` turns every check into a no-op.

The counting is the `limits` library's moving window, the storage Flask-Limiter runs on. Its
Limiter extension itself is not used: only these explicit checks limit anything, and its
before- and after-request hooks would cost every request, moves included, 20-35 µs.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from functools import lru_cache

from flask import Flask, Response, current_app, request
from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter, RateLimiter
from werkzeug.middleware.proxy_fix import ProxyFix

from pbem import i18n
from pbem.config import Settings
from pbem.domain import wording
from pbem.domain.errors import ServiceError
from pbem.models import utcnow
from pbem.web.errors import refusal

log = logging.getLogger(__name__)

EXTENSION = "pbem.ratelimits"
# Shared with the Celery broker's database: the prefix keeps the counters apart from its keys.
REDIS_KEY_PREFIX = "pbem-limits"


class RateLimited(ServiceError):
    """Too many requests of one kind; `retry_after` is in seconds."""

    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Counters:
    """An app's counters (None when the limits are off), and the in-memory stand-in used while
    its Redis does not answer."""

    config: Settings
    counting: RateLimiter | None
    fallback: RateLimiter | None = None

    def strategy(self, broken: bool) -> RateLimiter:
        assert self.counting is not None
        if not broken:
            return self.counting
        if self.fallback is None:
            self.fallback = MovingWindowRateLimiter(MemoryStorage())
        return self.fallback


def init_app(app: Flask) -> None:
    """Trust the configured proxies for the client address, set up the counters, answer 429."""
    config: Settings = app.config["PBEM"]
    if config.trusted_proxies:
        # Behind N proxies the client is the Nth address from the right of X-Forwarded-For;
        # anything further left was written by the client and is not believed.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=config.trusted_proxies
        )
    counting = None
    if config.rate_limits.enabled:
        # Per app, not per module: tests and tools build several apps in one process.
        storage = (
            storage_from_string(config.redis_url, **_redis_options())
            if config.redis_url
            else MemoryStorage()
        )
        counting = MovingWindowRateLimiter(storage)
    app.extensions[EXTENSION] = Counters(config, counting)
    app.register_error_handler(RateLimited, _too_many)


def _redis_options() -> dict[str, float | str | bool]:
    # A Redis that does not answer must not hold a player's request for long: after these
    # seconds the check falls back to this process's memory.
    return {
        "key_prefix": REDIS_KEY_PREFIX,
        "wrap_exceptions": True,
        "socket_connect_timeout": 2,
        "socket_timeout": 2,
    }


def _too_many(exc: RateLimited) -> Response:
    return refusal(exc.code, exc.message, exc.status, headers={"Retry-After": str(exc.retry_after)})


# --- the checks the views call -------------------------------------------------------------------

# What a refusal says, by what was counted: %(addresses)s the addresses concerned, %(wait)s how
# long to wait (translated when said).
SENTENCES = {
    "games-client": i18n.lazy_gettext(
        "Too many games started from your network address; try again in %(wait)s."
    ),
    "games-organiser": i18n.lazy_gettext(
        "Too many games started for %(addresses)s; try again in %(wait)s."
    ),
    "invitations": i18n.lazy_gettext(
        "Too many invitations sent to %(addresses)s; try again in %(wait)s."
    ),
    "signin-client": i18n.lazy_gettext(
        "Too many sign-in requests from your network address; try again in %(wait)s."
    ),
    "signin-address": i18n.lazy_gettext(
        "Too many sign-in links sent to %(addresses)s; try again in %(wait)s."
    ),
}


def check_game_creation(organiser: str, invited: Sequence[str] = ()) -> None:
    """One more game from this client and for this organiser, or RateLimited.

    `invited`: the addresses the new game invites at once, counted as `check_invitations` does,
    in the same check, so that a game refused for one limit uses up none of the others.
    """
    limits = _counters().config.rate_limits
    rules = [_Rule("games-client", client_key(), limits.games_per_client)]
    if organiser.strip():
        key = address_key(organiser)
        rules.append(_Rule("games-organiser", key, limits.games_per_organiser, organiser))
    _check(rules + _invitation_rules(invited))


def check_invitations(recipients: Sequence[str]) -> None:
    """One more invitation to each of these addresses (each counted once), or RateLimited."""
    _check(_invitation_rules(recipients))


def _invitation_rules(recipients: Sequence[str]) -> list[_Rule]:
    per_recipient = _counters().config.rate_limits.invitations_per_recipient
    rules: dict[str, _Rule] = {}
    for recipient in filter(str.strip, recipients):
        key = address_key(recipient)
        rules.setdefault(key, _Rule("invitations", key, per_recipient, recipient))
    return list(rules.values())


def check_signin(address: str) -> None:
    """One more sign-in email to this address from this client, or RateLimited.

    Counted whether or not the address plays here, so that the answer tells nothing about it.
    """
    limits = _counters().config.rate_limits
    rules = [_Rule("signin-client", client_key(), limits.signin_per_client)]
    if address.strip():
        key = address_key(address)
        rules.append(_Rule("signin-address", key, limits.signin_per_address, address))
    _check(rules)


# --- keys ----------------------------------------------------------------------------------------


def client_key() -> str:
    """The client's address as the limits see it (after ProxyFix); IPv6 by its /64, which one
    subscriber usually holds whole."""
    remote = request.remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def address_key(address: str) -> str:
    """An email address as the limits count it: case and `+tag` ignored, since they reach the
    same mailbox; hashed, so that the counters' store holds no addresses."""
    local, _, domain = address.strip().lower().rpartition("@")
    local = local.split("+", 1)[0]
    return hashlib.sha256(f"{local}@{domain}".encode()).hexdigest()[:32]


# --- counting ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    scope: str  # what is counted: a key of SENTENCES
    key: str  # whose count
    limits: str  # the setting, e.g. "10 per hour;30 per day"
    address: str = ""  # the email address a refusal names

    def items(self) -> list[RateLimitItem]:
        return _parse(self.limits)


@lru_cache(maxsize=32)
def _parse(limits: str) -> list[RateLimitItem]:
    return parse_many(limits)


def _counters() -> Counters:
    counters: Counters = current_app.extensions[EXTENSION]
    return counters


def _check(rules: Sequence[_Rule]) -> None:
    """Count one request against every rule, or refuse it without counting it anywhere."""
    counters = _counters()
    if counters.counting is None or not rules:
        return
    try:
        _count(counters.strategy(broken=False), rules)
    except StorageError as exc:
        log.warning("rate limit store unavailable, counting in memory: %s", exc)
        _count(counters.strategy(broken=True), rules)


def _count(strategy: RateLimiter, rules: Sequence[_Rule]) -> None:
    checks = [(rule, item) for rule in rules for item in rule.items()]
    # Test every limit first so that a refused request uses up none of them; then hit each, which
    # is atomic, so two requests racing past the tests cannot both take the last place.
    full = [(rule, item) for rule, item in checks if not strategy.test(item, rule.scope, rule.key)]
    if not full:
        full = [(r, item) for r, item in checks if not strategy.hit(item, r.scope, r.key)]
    if full:
        raise _refusal(strategy, full)


def _refusal(strategy: RateLimiter, full: list[tuple[_Rule, RateLimitItem]]) -> RateLimited:
    """The refusal of the limit with the longest wait, naming every address it holds back."""
    now = utcnow().replace(tzinfo=UTC).timestamp()
    waits: dict[str, float] = {}
    addresses: dict[str, list[str]] = {}
    for rule, item in full:
        wait = strategy.get_window_stats(item, rule.scope, rule.key).reset_time - now
        waits[rule.scope] = max(waits.get(rule.scope, 0.0), wait)
        named = addresses.setdefault(rule.scope, [])
        # Cut to the longest address there is: the form's text comes back in the answer.
        address = rule.address.strip()[:254]
        if address not in named:
            named.append(address)
    scope = max(waits, key=lambda s: waits[s])
    retry_after = max(1, math.ceil(waits[scope]))
    message = str(SENTENCES[scope]) % {
        "addresses": ", ".join(addresses[scope]),
        "wait": in_words(retry_after),
    }
    return RateLimited(message, retry_after)


def in_words(seconds: float) -> str:
    """A wait as people say it, rounded up: "1 minute", "40 minutes", "3 hours", "2 days"."""
    minutes = max(1, math.ceil(seconds / 60))
    hours = math.ceil(seconds / 3600)
    if minutes < 60:
        return wording.span(minutes, wording.MINUTE)
    if hours < 48:
        return wording.span(hours, wording.HOUR)
    return wording.span(math.ceil(seconds / 86400), wording.DAY)
