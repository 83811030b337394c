"""Bounds on what a request may carry, checked before any view reads it.

Every path parameter, query argument, form field and JSON value has a length bound (by its name,
else a default) and may not carry control characters; ids in paths stay within the columns'
range; a JSON body has a size and a nesting bound. A request over a bound is refused at the edge
with a message naming the field, so no input reaches the engines, the database or an error page
at a size it could not handle. The whole body is bounded by Flask's `MAX_CONTENT_LENGTH`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask, current_app, request
from sqlalchemy import BigInteger
from werkzeug.exceptions import RequestEntityTooLarge, RequestURITooLarge
from werkzeug.routing import IntegerConverter, Map

from pbem import i18n
from pbem.domain.errors import NotFound, ServiceError
from pbem.games import base as games_base
from pbem.links import ForgedLink
from pbem.models import Game, Move, Player, Submission

# The ids in paths are submissions', an INTEGER column (PostgreSQL's int4: 2**31-1 at most): a
# larger number names no row, and PostgreSQL refuses to compare one with the column (a 500).
MAX_ID = 2**63 - 1 if isinstance(Submission.id.type, BigInteger) else 2**31 - 1
# The longest text of a move the columns can hold (moves keep the canonical form, submissions the
# text as sent); every engine refuses far shorter input anyway.
MOVE_LENGTH = min(_column.type.length or 0 for _column in (Move.move, Submission.move))
ADDRESS_LENGTH = Player.email.type.length or 320
GAME_ID_LENGTH = Game.id.type.length or 32
# Links pbem writes are under 200 characters.
TOKEN_LENGTH = 512
# What a token (itsdangerous, URL-safe base64 and dots) and a game id (pbem.models.new_game_id,
# URL-safe base64) are written in; the OpenAPI document gives the same patterns.
_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")
_GAME_ID = re.compile(r"[A-Za-z0-9_-]+")

FIELD_LENGTHS = {
    "move": MOVE_LENGTH,
    "move_text": MOVE_LENGTH,
    "ply": 20,
    "email": ADDRESS_LENGTH,
    # A textarea of addresses, one a line; each one is also bounded by ADDRESS_LENGTH.
    "emails": 4096,
    "game": 32,
    "token": TOKEN_LENGTH,
    "game_id": GAME_ID_LENGTH,
}
# Fields bounded by their own check alone, which answers with the form kept and says what the
# one limit is: a game's name (`pbem.domain.titles.MAX_LENGTH`, as `pbem new-game --title`
# has it). The request's size still bounds them.
OWN_BOUNDS = frozenset({"title"})
# Any other field: engine options ("pitchfork", "16") and whatever a form adds later.
DEFAULT_LENGTH = 100
NAME_LENGTH = 64
# Fields whose text may span lines.
MULTILINE = frozenset({"emails"})

_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
# Query strings and paths this long are no link pbem wrote.
URL_LENGTH = 2048
JSON_BYTES = 8 * 1024
# The API's bodies are flat objects; the depth is checked before the decoder recurses.
JSON_DEPTH = 8
# An integer in a JSON body is a ply: 19 digits already exceed any column.
JSON_DIGITS = 19
# How much of what was sent a message may quote.
QUOTED = 80

# C0 and C1 controls, DEL, and lone surrogates (which JSON escapes can produce and no database
# encoding can store). Form text may keep its line breaks and tabs where a field spans lines.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_MULTILINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_ADDRESS_SEPARATORS = re.compile(r"[\s,;]+")
# JSON strings (skipped whole, possessively, so the scan never backtracks) and brackets.
_JSON_STRUCTURE = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[{]|[\]}]', re.DOTALL)


class TooLong(ServiceError, code="too_long", status=422):
    """A field, a body or a JSON value longer than its bound."""


class BadCharacters(ServiceError, code="bad_characters"):
    """Control characters where none may be."""


class BadBody(ServiceError):
    """A body pbem cannot read: not UTF-8, not JSON, too deep, or a field name it never uses."""


def shorten(text: str, limit: int = QUOTED) -> str:
    """At most `limit` characters of `text`, marked when cut: how pages quote what was sent."""
    return games_base.shorten(text, limit)


class BoundedInt(IntegerConverter):
    """`<int:…>` limited to 0..MAX_ID: a larger number is no page (404), not a database error."""

    regex = r"\d{1,19}"

    def __init__(self, map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs["max"] = min(kwargs.get("max") or MAX_ID, MAX_ID)
        super().__init__(map, *args, **kwargs)


def register(app: Flask) -> None:
    """Bound every request of `app`; before the blueprints, whose `<int:…>` rules use BoundedInt."""
    app.url_map.converters["int"] = BoundedInt
    app.before_request(check_request)


def check_request() -> None:
    """Refuse a request with an over-long or malformed part before any view reads it."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        raise RequestEntityTooLarge()
    if len(request.path) > URL_LENGTH or len(request.query_string) > URL_LENGTH:
        raise RequestURITooLarge()
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str):
            check_path_part(name, value)
    _check_authorization(request.headers.get("Authorization", ""))
    for name, value in request.args.items(multi=True):
        check_field(name, value, "query argument")
    # The types werkzeug parses into `request.form` (bounded by MAX_CONTENT_LENGTH and Flask's
    # form limits); asking for the form of any other body costs the API's moves for nothing. A
    # JSON body is checked by json_body.
    if request.mimetype in _FORM_TYPES:
        for name, value in request.form.items(multi=True):
            check_field(name, value, "field")


def check_path_part(name: str, value: str) -> None:
    if name == "token":
        _check_token(value)
    if _CONTROL.search(value):
        raise BadCharacters(
            i18n.gettext(
                "The address of this page contains a control character (such as a NUL byte). "
                "Open the link exactly as it is in your email."
            )
        )
    if len(value) > FIELD_LENGTHS.get(name, DEFAULT_LENGTH):
        raise NotFound(i18n.gettext("There is no such page."))
    if name == "game_id" and not _GAME_ID.fullmatch(value):
        raise NotFound(
            i18n.gettext(
                "There is no such game: a game id is letters, digits, '-' and '_'. Open the link "
                "from your email again, making sure it is copied exactly."
            )
        )


def check_field(name: str, value: str, what: str = "field") -> None:
    """Refuse a field over its length bound or carrying control characters."""
    _check_name(name, what)
    if name == "token":
        _check_token(value)
    bound = FIELD_LENGTHS.get(name, DEFAULT_LENGTH)
    if len(value) > bound and name not in OWN_BOUNDS:
        raise TooLong(str(_TOO_LONG[what]) % {"name": name, "length": len(value), "most": bound})
    multiline = name in MULTILINE
    if (_CONTROL_MULTILINE if multiline else _CONTROL).search(value):
        raise BadCharacters(str(_CONTROLS[what, multiline]) % {"name": name})
    if name == "emails":
        for address in _ADDRESS_SEPARATORS.split(value):
            if len(address) > ADDRESS_LENGTH:
                raise TooLong(
                    i18n.gettext(
                        "The address %(address)s is %(length)d characters long; an email "
                        "address has at most %(most)d. Correct it and send it again.",
                        address=repr(shorten(address, 40)),
                        length=len(address),
                        most=ADDRESS_LENGTH,
                    )
                )


def _check_name(name: str, what: str) -> None:
    if len(name) > NAME_LENGTH or _CONTROL.search(name):
        raise BadBody(str(_NAMED[what]) % {"name": repr(shorten(name, 40))})


# What is refused, by the part of the request that holds it (`what`): each message whole.
_TOO_LONG = {
    "query argument": i18n.lazy_gettext(
        "The query argument '%(name)s' is %(length)d characters long; pbem accepts at most "
        "%(most)d. Shorten it and send it again."
    ),
    "field": i18n.lazy_gettext(
        "The field '%(name)s' is %(length)d characters long; pbem accepts at most %(most)d. "
        "Shorten it and send it again."
    ),
    "JSON value": i18n.lazy_gettext(
        "The JSON value '%(name)s' is %(length)d characters long; pbem accepts at most "
        "%(most)d. Shorten it and send it again."
    ),
}
# By the part and whether the field may span lines.
_CONTROLS = {
    ("query argument", False): i18n.lazy_gettext(
        "The query argument '%(name)s' contains a control character (such as a NUL byte or a "
        "line break), which pbem does not accept. Remove it and send it again."
    ),
    ("query argument", True): i18n.lazy_gettext(
        "The query argument '%(name)s' contains a control character (such as a NUL byte), which "
        "pbem does not accept. Remove it and send it again."
    ),
    ("field", False): i18n.lazy_gettext(
        "The field '%(name)s' contains a control character (such as a NUL byte or a line "
        "break), which pbem does not accept. Remove it and send it again."
    ),
    ("field", True): i18n.lazy_gettext(
        "The field '%(name)s' contains a control character (such as a NUL byte), which pbem "
        "does not accept. Remove it and send it again."
    ),
    ("JSON value", False): i18n.lazy_gettext(
        "The JSON value '%(name)s' contains a control character (such as a NUL byte or a line "
        "break), which pbem does not accept. Remove it and send it again."
    ),
    ("JSON value", True): i18n.lazy_gettext(
        "The JSON value '%(name)s' contains a control character (such as a NUL byte), which "
        "pbem does not accept. Remove it and send it again."
    ),
}
_NAMED = {
    "query argument": i18n.lazy_gettext(
        "The request has a query argument named %(name)s, which is no name pbem uses."
    ),
    "field": i18n.lazy_gettext(
        "The request has a field named %(name)s, which is no name pbem uses."
    ),
    "JSON value": i18n.lazy_gettext(
        "The request has a JSON value named %(name)s, which is no name pbem uses."
    ),
    "JSON key": i18n.lazy_gettext(
        "The request has a JSON key named %(name)s, which is no name pbem uses."
    ),
}


def _check_authorization(header: str) -> None:
    if not header:
        return
    # A credential that cannot be a token is a bad one (403), like a forged token, whatever
    # is wrong with it.
    if _CONTROL.search(header):
        raise ForgedLink(
            i18n.gettext(
                "The Authorization header contains a control character, so it holds no token pbem "
                "wrote; send 'Authorization: Bearer <token>' with the token from your link."
            )
        )
    if len(header) > TOKEN_LENGTH + len("Bearer "):
        raise _long_token()


def _check_token(value: str) -> None:
    """Refuse as a bad link (403) a token longer than any pbem writes or in other characters."""
    if len(value) > TOKEN_LENGTH:
        raise _long_token()
    if value and not _TOKEN.fullmatch(value):
        raise ForgedLink(
            i18n.gettext(
                "This link is not valid: its token holds characters no pbem link has (only "
                "letters, digits, '-', '_' and '.'). Open the link from your email again, making "
                "sure it is copied exactly."
            )
        )


def _long_token() -> ForgedLink:
    return ForgedLink(
        i18n.gettext(
            "This link is not valid: it is longer than any link pbem writes. Open the link from "
            "your email again, making sure it is copied exactly."
        )
    )


def json_body() -> object:
    """The request's JSON body, parsed within bounds; None when the request is not JSON.

    Refused with 413 over JSON_BYTES and with 400 when nested deeper than JSON_DEPTH, holding an
    integer longer than JSON_DIGITS, NaN or Infinity, or a string over its field's bound.
    """
    if not request.is_json:
        return None
    if (request.content_length or 0) > JSON_BYTES:
        raise _json_too_large()
    # A body without a Content-Length is still cut at MAX_CONTENT_LENGTH by werkzeug.
    raw = request.get_data(cache=True)
    if len(raw) > JSON_BYTES:
        raise _json_too_large()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBody(
            i18n.gettext("The body is not UTF-8 text; send JSON encoded as UTF-8.")
        ) from exc
    _check_depth(text)
    try:
        body = json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except ValueError as exc:
        raise BadBody(
            i18n.gettext("The body is not valid JSON: %(problem)s.", problem=shorten(str(exc)))
        ) from exc
    _check_json_strings(body, "body")
    return body


def _json_too_large() -> RequestEntityTooLarge:
    return RequestEntityTooLarge(
        i18n.gettext(
            "The JSON body is larger than %(kib)d KiB; a request to the API is a few dozen "
            "bytes. Send less.",
            kib=JSON_BYTES // 1024,
        )
    )


def _check_depth(text: str) -> None:
    depth = 0
    for token in _JSON_STRUCTURE.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > JSON_DEPTH:
                raise BadBody(
                    i18n.gettext(
                        "The JSON body is nested more than %(depth)d deep; the API's bodies are "
                        'flat objects such as {"move": "...", "ply": N}.',
                        depth=JSON_DEPTH,
                    )
                )
        elif bracket in ("]", "}"):
            depth -= 1


def _json_int(digits: str) -> int:
    if len(digits.lstrip("-")) > JSON_DIGITS:
        raise ValueError(f"an integer has more than {JSON_DIGITS} digits")
    return int(digits)


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _check_json_strings(value: object, name: str) -> None:
    if isinstance(value, str):
        check_field(name, value, "JSON value")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(item, str):
                _check_name(key, "JSON key")
            _check_json_strings(item, key)
    elif isinstance(value, list):
        for item in value:
            _check_json_strings(item, name)
