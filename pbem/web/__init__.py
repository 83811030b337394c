"""The web side: one blueprint per feature."""

from __future__ import annotations

from flask import Flask

from pbem.domain import glossary
from pbem.web import (
    api,
    board_scripts,
    boardkit,
    dashboard,
    errors,
    headers,
    invite,
    limits,
    outages,
    outbox,
    play,
    start,
)


def register_blueprints(app: Flask) -> None:
    limits.register(app)
    app.before_request(glossary.number_afresh)
    # boardkit adds click-to-move, live refresh and replay to the game page; its plain form in
    # `play` works without them.
    for module in (start, invite, play, api, outbox, boardkit, board_scripts, dashboard):
        app.register_blueprint(module.bp)
    errors.register(app)
    # After the blueprints: it wraps every view registered above.
    outages.install(app)
    headers.register(app)
