"""Brotli or gzip for text answers (Flask-Compress), except those a link's token opened.

A page a token opened holds secrets (the token itself in its links and page data, a seat's hidden
hand) beside text others choose (players' names, a typed move quoted back). Compressed, its length
would tell a network observer whether a guess matches a secret (BREACH), so it is sent as it is;
docs/security.md says why. Images that are already compressed (PNG) are never listed here.
"""

from __future__ import annotations

from flask import Flask, Response
from flask_compress import Compress

from pbem.web.headers import opened_by_token

MIMETYPES = (
    "text/html",
    "text/css",
    "text/plain",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
)
# Brotli for every current browser, gzip for the rest; not deflate, whose framing clients read
# two ways.
ALGORITHMS = ("br", "gzip")


def register(app: Flask) -> None:
    app.config.setdefault("COMPRESS_MIMETYPES", list(MIMETYPES))
    app.config.setdefault("COMPRESS_ALGORITHM", list(ALGORITHMS))
    # Hooked by hand below, so that a token's answers can be left out.
    app.config["COMPRESS_REGISTER"] = False
    compressor = Compress(app)

    def compress(response: Response) -> Response:
        """The answer compressed as the client accepts, unless a token opened it."""
        if opened_by_token() or response.status_code == 206:
            # A range is part of the file as stored, not of a compressed copy.
            return response
        return compressor.after_request(response)

    app.after_request(compress)
