"""Until the service's blueprint list and game page include the interactive parts, add them."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from jinja2 import ChoiceLoader, DictLoader

PAGES = Path(__file__).resolve().parents[2] / "templates" / "pages"


def integrate(app: Flask) -> None:
    from pbem.web import boardkit, dashboard

    for blueprint in (boardkit.bp, dashboard.bp):
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint)
    if "_board.html" not in (PAGES / "play.html").read_text():
        enhanced = (PAGES / "_play_enhanced.html").read_text()
        app.jinja_loader = ChoiceLoader(  # type: ignore[method-assign]
            [DictLoader({"pages/play.html": enhanced}), app.jinja_loader]
        )
