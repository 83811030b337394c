"""What every response carries: a Content-Security-Policy, no framing, no sniffing, no referrer,
no powerful browser features, HSTS behind https; and for anything a link's token opened, no
caching and no indexing.

The pages run only scripts served from pbem itself (ES modules under /static, each game's
controller under /static/games/<name>/); JSON islands are data the CSP never executes. Styles
come from files too (`base.css`, `pbem.css`, each game's `board.css`): nothing inline.
"""

from __future__ import annotations

from flask import Flask, Response, request

from pbem import redact
from pbem.extensions import settings

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

HSTS = "max-age=31536000; includeSubDomains"

# Every feature pbem never uses, refused to the page and to anything it could embed. Only names
# browsers know today: an unknown one (FLoC's interest-cohort, withdrawn) is a console warning.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "serial",
        "usb",
    )
)
# A page a token opened is one player's: no search engine should list or follow it.
ROBOTS_TAG = "noindex, nofollow"

# Paths whose next segment is a token: anything they answer is for the link's holder only.
TOKEN_PREFIXES = tuple(f"/{name}/" for name in redact.TOKEN_PATHS)
# Paths that answer a token sent in a header or the query: pages of one seat, the JSON API.
PRIVATE_PREFIXES = ("/api/", "/submission/")


def register(app: Flask) -> None:
    app.after_request(secure)
    # Request lines and "Exception on <path>" carry tokens: mask them in pbem's logs as well.
    redact.install()


def secure(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Frame-Options", "DENY")
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["Permissions-Policy"] = PERMISSIONS_POLICY
    if settings().base_url.startswith("https://"):
        headers["Strict-Transport-Security"] = HSTS
    path = request.path
    if opened_by_token() or path.startswith(PRIVATE_PREFIXES):
        headers["X-Robots-Tag"] = ROBOTS_TAG
    if path.startswith(TOKEN_PREFIXES) or "token" in request.args:
        # A token in the URL: a cached copy would open the seat to whoever reads the cache, and
        # a shared or browser cache keys on that URL. Never stored, whatever the view asked.
        headers["Cache-Control"] = "no-store"
    elif path.startswith(PRIVATE_PREFIXES) or "Authorization" in request.headers:
        if "Cache-Control" in headers:
            # The view chose to cache (a past position never changes); the answer depends on
            # the seat whose token came in the header.
            response.vary.add("Authorization")
        else:
            headers["Cache-Control"] = "no-store"
    return response


def opened_by_token() -> bool:
    """The request carries a link's token: in its path, its query or its Authorization header."""
    return (
        request.path.startswith(TOKEN_PREFIXES)
        or "token" in request.args
        or "Authorization" in request.headers
    )
