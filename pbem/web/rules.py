"""The rules for players: /rules lists the games, /rules/<game> explains one, with pictures the
engine draws of real positions (/rules/<game>/pictures/<name>.svg).

Each game writes its page in its own package (`guide.html`, a Jinja template, beside the
`guide` module of `pbem.games.guide`), as it ships its board script, so nothing here names a
game. The template gets `picture(name, alt)` for a drawn position (with `close=true`, only its
focus, for two pictures side by side) and `facts` for the numbers of its worked examples, both
computed by the engine from positions played with its own moves.
"""

from __future__ import annotations

import importlib.resources
import re
from functools import cache

from flask import Blueprint, Response, abort, current_app, redirect, render_template, url_for
from jinja2 import Template
from markupsafe import Markup
from werkzeug.wrappers import Response as WerkzeugResponse

from pbem import games, i18n
from pbem.domain import glossary, wording
from pbem.games.guide import Examples, Guide
from pbem.web import board_scripts

bp = Blueprint("rules", __name__)

PAGE = "guide.html"
# Pictures and pages change only with the code: a browser may keep them a day.
MAX_AGE = 24 * 3600
NAME = re.compile(r"[a-z0-9-]{1,40}")
# Below this width a figure with a focus shows only that part (pbem/static/rules.css agrees).
NARROW = "40em"
# Room kept around a focus rectangle, in the drawing's units: above and to the left for the axis
# labels just outside it, a little on the other sides.
FOCUS_MARGIN = 30.0
FOCUS_EDGE = 6.0
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"')


@bp.get("/rules")
def index() -> str:
    found = [
        (name, games.get(name).title, glossary.local_guide(name)) for name in glossary.guided()
    ]
    return render_template("pages/rules/index.html", found=found)


@bp.get("/rules/<name>")
def page(name: str) -> Response:
    found = _guide(name)
    game = games.get(name)
    local = glossary.local_guide(name)
    # The page is written in the game's words, from the game's own catalog.
    body = _template(name).render(
        title=game.title,
        guide=local,
        facts=_examples(name).facts,
        picture=lambda key, alt, close=False: picture(name, key, alt, close=close),
        rules_path=glossary.rules_path,
        **i18n.game_template_words(name),
    )
    html = render_template(
        "pages/rules/page.html",
        name=name,
        title=game.title,
        guide=local or found,
        body=Markup(body),
    )
    return _cached(Response(html, mimetype="text/html"))


@bp.get("/rules/<name>/<variant>")
def variant(name: str, variant: str) -> WerkzeugResponse:
    """A way to play the game (`/rules/<game>/pitchfork`, `/rules/<game>/16`): its part of the
    page."""
    found = _guide(name)
    for way in found.variants:
        if way.value == variant.lower():
            return redirect(url_for("rules.page", name=name, _anchor=way.anchor))
    ways = ", ".join(way.value for way in found.variants)
    title, asked = games.get(name).title, repr(variant[:40])
    if not ways:
        abort(
            404,
            i18n.gettext(
                "%(game)s has no variant %(variant)s; it has: none.", game=title, variant=asked
            ),
        )
    abort(
        404,
        i18n.gettext(
            "%(game)s has no variant %(variant)s; it has: %(variants)s.",
            game=title,
            variant=asked,
            variants=ways,
        ),
    )


@bp.get("/rules/<name>/pictures/<key>.svg")
def svg(name: str, key: str) -> Response:
    _guide(name)
    if not NAME.fullmatch(key) or key not in _examples(name).figures:
        abort(
            404,
            i18n.gettext(
                "There is no picture %(key)s on the rules page of %(game)s.",
                key=repr(key[:40]),
                game=name,
            ),
        )
    return _cached(Response(_drawing(name, key, i18n.language()), mimetype="image/svg+xml"))


@bp.get("/rules/<name>/pictures/<key>.focus.svg")
def focus_svg(name: str, key: str) -> Response:
    """The part of a picture a narrow screen shows (the figure's `focus`), as its own SVG."""
    _guide(name)
    if not NAME.fullmatch(key) or _focused(name, key, i18n.language()) is None:
        abort(
            404,
            i18n.gettext(
                "There is no close-up %(key)s on the rules page of %(game)s.",
                key=repr(key[:40]),
                game=name,
            ),
        )
    focused = _focused(name, key, i18n.language())
    assert focused is not None
    return _cached(Response(focused, mimetype="image/svg+xml"))


def picture(name: str, key: str, alt: str, *, close: bool = False) -> Markup:
    """A drawn position as the rules page shows it, opening full size when tapped. A figure
    with a `focus` shows only that part on a narrow screen, larger; with `close`, at every
    width (two pictures side by side are each as narrow as a phone)."""
    if key not in _examples(name).figures:
        raise KeyError(f"the guide of {name} draws no position {key!r}")
    if isinstance(alt, Markup):
        # The page's gettext gives markup; an attribute takes text, escaped once here.
        alt = alt.unescape()
    url = url_for("rules.svg", name=name, key=key)
    width, height = _size(_drawing(name, key, i18n.language())) or (600, 400)
    focused = _focused(name, key, i18n.language())
    if focused is None:
        image = _img(url, alt, (width, height), key)
    else:
        close_url = url_for("rules.focus_svg", name=name, key=key)
        close_size = _size(focused) or (width, height)
        if close:
            image = _img(close_url, alt, close_size, key) + Markup(
                '<span class="rules-picture-more rules-picture-more-always">{more}</span>'
            ).format(more=i18n.gettext("Open the whole picture"))
        else:
            image = Markup(
                '<picture><source media="(max-width: {narrow})" srcset="{close}" width="{cw}" '
                'height="{ch}">{image}</picture><span class="rules-picture-more">{more}</span>'
            ).format(
                narrow=NARROW,
                close=close_url,
                cw=close_size[0],
                ch=close_size[1],
                image=_img(url, alt, (width, height), key),
                more=i18n.gettext("Tap for the whole picture"),
            )
    return Markup('<a class="rules-picture" href="{url}" title="{title}">{image}</a>').format(
        url=url, title=i18n.gettext("Open the whole picture"), image=image
    )


def _img(url: str, alt: str, size: tuple[int, int], key: str) -> Markup:
    return Markup(
        '<img src="{url}" alt="{alt}" width="{width}" height="{height}" loading="lazy" '
        'data-picture="{key}">'
    ).format(url=url, alt=alt, width=size[0], height=size[1], key=key)


def _size(svg: str) -> tuple[int, int] | None:
    found = _SIZE.search(svg)
    return (round(float(found[1])), round(float(found[2]))) if found else None


def _guide(name: str) -> Guide:
    found = glossary.guide(name) if NAME.fullmatch(name) else None
    if found is None:
        known = ", ".join(glossary.guided())
        abort(
            404,
            i18n.gettext(
                "There are no rules here for a game called %(game)s. Games: %(known)s.",
                game=repr(name[:40]),
                known=known,
            ),
        )
    return found


@cache
def _examples(name: str) -> Examples:
    """The game's example positions, built once per process."""
    found = glossary.guide(name)
    assert found is not None
    return found.examples()


@cache
def _drawing(name: str, key: str, language: str) -> str:
    """A figure of the rules page drawn with its words in `language` (the one being written)."""
    figure = _examples(name).figures[key]
    names = list(figure.names) if figure.names else None
    return games.get(name).render_svg(
        figure.state, figure.seat, names, wording.game_language(name, language)
    )


@cache
def _focused(name: str, key: str, language: str) -> str | None:
    """The drawing cut down to its `focus` rectangle and a margin: the root element's viewBox,
    width and height rewritten, nothing else touched. None when the figure has no focus or the
    drawing has no such rectangle."""
    figure = _examples(name).figures.get(key)
    if figure is None or not figure.focus:
        return None
    svg = _drawing(name, key, language)
    for tag in re.finditer(r"<rect\b[^>]*>", svg):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag[0]))
        if figure.focus not in attrs.get("class", "").split():
            continue
        try:
            x, y, w, h = (float(attrs[a]) for a in ("x", "y", "width", "height"))
        except (KeyError, ValueError):
            return None
        left, top = min(x, FOCUS_MARGIN), min(y, FOCUS_MARGIN)
        x, y, w, h = x - left, y - top, w + left + FOCUS_EDGE, h + top + FOCUS_EDGE
        root = re.search(r"<svg\b[^>]*>", svg)
        if root is None:
            return None
        tag_text = root[0]
        for attr, value in (
            ("viewBox", f"{x:g} {y:g} {w:g} {h:g}"),
            ("width", f"{w:g}"),
            ("height", f"{h:g}"),
        ):
            tag_text = re.sub(rf'\s{attr}="[^"]*"', f' {attr}="{value}"', tag_text, count=1)
        return svg[: root.start()] + tag_text + svg[root.end() :]
    return None


def _template(name: str) -> Template:
    # Compiled once per app (tests make many apps; each has its own Jinja environment).
    compiled: dict[str, Template] = current_app.extensions.setdefault("pbem_rules_pages", {})
    if name not in compiled:
        source = _source(name)
        if source is None:
            abort(
                404,
                i18n.gettext("The rules page of %(game)s has not been written yet.", game=name),
            )
        compiled[name] = current_app.jinja_env.from_string(source)
    return compiled[name]


def _source(name: str) -> str | None:
    package = board_scripts.package_of(games.get(name))
    if package is None:
        return None
    try:
        resource = importlib.resources.files(package).joinpath(PAGE)
    except (ModuleNotFoundError, TypeError):
        return None
    return resource.read_text(encoding="utf-8") if resource.is_file() else None


def _cached(response: Response) -> Response:
    response.cache_control.public = True
    response.cache_control.max_age = MAX_AGE
    return response


@bp.app_template_global("pbem_rules_path")
def rules_path(name: str, anchor: str | None = None) -> str | None:
    """The path of the game's rules page, or None when it has none."""
    return glossary.rules_path(name, anchor)


@bp.app_template_global("pbem_gloss")
def gloss(text: str, name: str) -> Markup:
    """`text` with the game's words explained on hover, tap or Enter."""
    return glossary.gloss(text, name)


@bp.app_template_global("pbem_terms")
def terms(name: str) -> list[Markup]:
    """Every word of the game's glossary, each as a button that explains it."""
    return [glossary.explain(term, name) for term in glossary.terms(name)]
