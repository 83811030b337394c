"""The web side: one blueprint per feature."""

from __future__ import annotations

from flask import Flask

from pbem.web import api, boardkit, dashboard, invite, outbox, pages_errors, play, start


def register_blueprints(app: Flask) -> None:
    # boardkit and dashboard are the interactive pages (issue 5): click-to-move, live refresh,
    # replay, the player's dashboard; the plain form of `play` keeps working without them.
    for module in (start, invite, play, api, outbox, boardkit, dashboard):
        app.register_blueprint(module.bp)
    pages_errors.register(app)
