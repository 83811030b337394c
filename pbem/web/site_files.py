"""The files a browser or a crawler asks every site for: /robots.txt and /favicon.ico.

robots.txt lets crawlers read the public pages (home, rules, sign-in) and keeps them out of every
path a link's token opens, the API and the local outbox. It is a request to polite crawlers, not
a lock: those pages are also sent `X-Robots-Tag: noindex` (`pbem.web.headers`), and the token is
what guards them. The pages link the SVG icon (`pbem/static/favicon.svg`); /favicon.ico is there
for the browsers and tools that ask for it anyway.
"""

from __future__ import annotations

from flask import Blueprint, Response, send_from_directory

from pbem import resources
from pbem.web.headers import PRIVATE_PREFIXES, TOKEN_PREFIXES

bp = Blueprint("site_files", __name__)

# Neither name can carry a hash, so a browser keeps them a day, not a year.
MAX_AGE = 24 * 3600
# Only this machine may read the embedded outbox (pbem.web.outbox); nothing to index there.
LOCAL_ONLY = ("/outbox",)
# What the operator's monitors read (pbem.web.health).
OPERATOR_PATHS = ("/healthz", "/readyz", "/metrics")


def robots_text() -> str:
    """Every path a crawler should leave alone, one `Disallow` line each; the rest is allowed."""
    lines = ["User-agent: *", "Allow: /"]
    lines += [
        f"Disallow: {path}"
        for path in (*TOKEN_PREFIXES, *PRIVATE_PREFIXES, *LOCAL_ONLY, *OPERATOR_PATHS)
    ]
    return "\n".join(lines) + "\n"


@bp.get("/robots.txt")
def robots() -> Response:
    response = Response(robots_text(), mimetype="text/plain")
    response.cache_control.public = True
    response.cache_control.max_age = MAX_AGE
    return response


@bp.get("/favicon.ico")
def favicon() -> Response:
    return send_from_directory(
        resources.static_dir(), "favicon.ico", mimetype="image/x-icon", max_age=MAX_AGE
    )
