"""The web side: one blueprint per feature, wired into an app by `init_app` alone."""

from __future__ import annotations

from flask import Flask

from pbem.domain import glossary
from pbem.web import (
    api,
    assets,
    board_scripts,
    boardkit,
    compression,
    dashboard,
    descriptions,
    erasure,
    errors,
    game_actions,
    headers,
    health,
    invite,
    language,
    language_choice,
    limits,
    mail_settings,
    outages,
    outbox,
    play,
    ratelimits,
    request_ids,
    rules,
    site_files,
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
    erasure,
    language_choice,
    site_files,
    health,
)


def init_app(app: Flask) -> None:
    """The request bounds, every blueprint, the refusals, the outage retry, the security
    headers, the rate limits and compression, in the order each needs."""
    # First: every line a request logs carries its id.
    request_ids.register(app)
    # Next: whatever a request writes, a refusal included, is in its language.
    language.register(app)
    # Before the blueprints: their `<int:…>` rules take the bounded converter.
    limits.register(app)
    app.before_request(glossary.number_afresh)
    for module in BLUEPRINTS:
        app.register_blueprint(module.bp)
    assets.register(app)
    descriptions.register(app)
    errors.register(app)
    # After the blueprints: it wraps every view registered above.
    outages.install(app)
    # Hooks after a request run in the reverse order: compression after the security headers.
    compression.register(app)
    headers.register(app)
    ratelimits.init_app(app)
