"""Each game's own part of the game page: its click-to-move controller and its stylesheet.

A game ships them in its package, beside the engine: `board.js`, an ES module whose default export
is the controller (the contract is in pbem/static/kit.js), and `board.css`. They are served at
/static/games/<name>/board.js and /static/games/<name>/board.css, found through the registry from
the package of the engine's class, so nothing outside a game's package names the game. The page
data carries the script's URL (`urls.controller`, from `script_url`); a game without a script is
played with the plain form. The scripts import the shared helpers as "../../kit.js", which these
URLs resolve to the kit served beside play.js.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import sys
import types
from importlib.resources.abc import Traversable

from flask import Blueprint, Response, abort, current_app, request, url_for

from pbem import games

bp = Blueprint("board_scripts", __name__)

SCRIPT = "board.js"
STYLE = "board.css"
MIMETYPES = {SCRIPT: "text/javascript", STYLE: "text/css"}


def package_of(game: games.Game) -> str | None:
    """The package the engine's class is defined in (its module, when that is a package)."""
    module = game if isinstance(game, types.ModuleType) else sys.modules.get(type(game).__module__)
    if module is None:
        return None
    if hasattr(module, "__path__"):
        return module.__name__
    return module.__package__ or None


def asset(name: str, filename: str) -> Traversable | None:
    """The file `filename` of the package of the game registered as `name`, if there is one."""
    try:
        game = games.get(name)
    except KeyError:
        return None
    package = package_of(game)
    if package is None:
        return None
    try:
        resource = importlib.resources.files(package).joinpath(filename)
    except (ModuleNotFoundError, TypeError):
        return None
    return resource if resource.is_file() else None


@bp.app_template_global("pbem_board_script")
def script_url(name: str) -> str | None:
    """The URL of the game's click-to-move controller, or None when it has none."""
    return url_for("board_scripts.script", name=name) if asset(name, SCRIPT) else None


@bp.app_template_global("pbem_board_style")
def style_url(name: str) -> str | None:
    """The URL of the game's own stylesheet for its page, or None when it has none."""
    return url_for("board_scripts.style", name=name) if asset(name, STYLE) else None


@bp.get("/static/games/<name>/board.js")
def script(name: str) -> Response:
    return _send(name, SCRIPT)


@bp.get("/static/games/<name>/board.css")
def style(name: str) -> Response:
    return _send(name, STYLE)


def _send(name: str, filename: str) -> Response:
    resource = asset(name, filename)
    if resource is None:
        abort(404)
    body = resource.read_bytes()
    response = Response(body, mimetype=MIMETYPES[filename])
    response.headers["X-Content-Type-Options"] = "nosniff"
    # Cached like the rest of /static (the kit these scripts import included), so a deploy never
    # pairs an old script with a new kit: revalidated by its ETag unless the app sets a max age.
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.cache_control.public = True
    max_age = current_app.get_send_file_max_age(filename)
    if max_age is None:
        response.cache_control.no_cache = True
    else:
        response.cache_control.max_age = max_age
    response.make_conditional(request)
    return response
