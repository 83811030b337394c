"""The web side: one blueprint per feature."""

from __future__ import annotations

from flask import Flask

from pbem.web import api, invite, outbox, pages_errors, play, start


def register_blueprints(app: Flask) -> None:
    for module in (start, invite, play, api, outbox):
        app.register_blueprint(module.bp)
    pages_errors.register(app)
