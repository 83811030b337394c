"""Each game's own part of the game page: its click-to-move controller and its stylesheet.

A game ships them in its package, beside the engine: `board.js`, an ES module whose default export
is the controller (the contract is in pbem/static/kit.js), and `board.css`. They are served at
/static/games/<name>/board.js and /static/games/<name>/board.css, found through the registry from
the package of the engine's class, so nothing outside a game's package names the game. The page
data carries the script's URL (`urls.controller`, from `script_url`); a game without a script is
played with the plain form. The scripts import the shared helpers as "../../kit.js", which these
URLs resolve to the kit served beside play.js. Pages name them with their content's hash (and
the kit's, which they import), /static/games/<name>/board.<hash>.js, cached for a year and sent
importing the kit by its fingerprinted name (`pbem.web.assets`).
"""

from __future__ import annotations

import importlib.resources
import sys
import types
from importlib.resources.abc import Traversable

from flask import Blueprint, Response, abort, request, url_for

from pbem import games
from pbem.web import assets

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
    """The fingerprinted URL of the game's click-to-move controller, or None when it has none."""
    return _url("board_scripts.script", name, SCRIPT)


@bp.app_template_global("pbem_board_style")
def style_url(name: str) -> str | None:
    """The fingerprinted URL of the game's own stylesheet, or None when it has none."""
    return _url("board_scripts.style", name, STYLE)


def _url(endpoint: str, name: str, filename: str) -> str | None:
    resource = asset(name, filename)
    value = assets.module_digest(resource, _path(name, filename)) if resource is not None else None
    return url_for(endpoint, name=name, digest=value) if value is not None else None


@bp.get("/static/games/<name>/board.js")
@bp.get("/static/games/<name>/board.<digest>.js")
def script(name: str, digest: str | None = None) -> Response:
    return _send(name, SCRIPT, digest)


@bp.get("/static/games/<name>/board.css")
@bp.get("/static/games/<name>/board.<digest>.css")
def style(name: str, digest: str | None = None) -> Response:
    return _send(name, STYLE, digest)


def _path(name: str, filename: str) -> str:
    """Where the file is under /static/: its module's relative imports resolve from there."""
    return f"games/{name}/{filename}"


def _send(name: str, filename: str, carried: str | None) -> Response:
    resource = asset(name, filename)
    current = assets.digest(resource) if resource is not None else None
    if resource is None or current is None:
        abort(404)
    if filename == SCRIPT:
        return assets.send_module(resource, _path(name, filename), carried, MIMETYPES[filename])
    response = Response(resource.read_bytes(), mimetype=MIMETYPES[filename])
    response.headers["X-Content-Type-Options"] = "nosniff"
    # The plain name and a stale hash are revalidated by the ETag each time, as the kit these
    # scripts import always is, so a deploy never pairs an old script with a new kit.
    response.set_etag(current)
    response.make_conditional(request)
    return assets.cache(response, fresh=carried == current)
