"""The web side: one blueprint per feature, wired into an app by `init_app` alone."""

from __future__ import annotations

from flask import Flask

from pbem.domain import glossary
from pbem.web import (
    api,
    board_scripts,
    boardkit,
    dashboard,
    errors,
    game_actions,
    headers,
    invite,
    limits,
    mail_settings,
    outages,
    outbox,
    play,
    ratelimits,
    rules,
    start,
)

# Every blueprint of the service, the one list. boardkit adds click-to-move, live refresh and
# replay to the game page; its plain form in `play` works without them.
BLUEPRINTS = (
    game_actions,
    mail_settings,
    rules,
    start,
    invite,
    play,
    api,
    outbox,
    boardkit,
    board_scripts,
    dashboard,
)


def init_app(app: Flask) -> None:
    """The request bounds, every blueprint, the refusals, the outage retry, the security
    headers and the rate limits, in the order each needs."""
    # Before the blueprints: their `<int:…>` rules take the bounded converter.
    limits.register(app)
    app.before_request(glossary.number_afresh)
    for module in BLUEPRINTS:
        app.register_blueprint(module.bp)
    errors.register(app)
    # After the blueprints: it wraps every view registered above.
    outages.install(app)
    headers.register(app)
    ratelimits.init_app(app)
