"""gunicorn's logs without tokens: `gunicorn --logger-class pbem.gunicorn_logging.MaskingLogger`.

The access log writes each request's path and query, where links carry their token; the error
log names the URI of a request that failed. Both keep a token's first characters only
(`pbem.redact`). With `PBEM_LOG_FORMAT=json` both write one JSON object a line, as pbem's own
logs do (`pbem.logs`), each access line with the request's id.
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]

from pbem import logs
from pbem.config import ConfigError, load_settings
from pbem.redact import LOGGERS, MASK, RedactingFilter, install, redact

# Atoms that hold a URL or a credential: the request line, path, query, referrer, and the same
# again as request headers and WSGI environ entries.
_URL_ATOMS = (
    "r",
    "U",
    "q",
    "f",
    "{referer}i",
    "{raw_uri}e",
    "{path_info}e",
    "{query_string}e",
    "{request_uri}e",
    "{http_referer}e",
)
_CREDENTIAL_ATOMS = ("{authorization}i", "{http_authorization}e")
_COOKIE_ATOMS = ("{cookie}i", "{http_cookie}e")


class MaskingLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, with tokens masked in the access log's atoms and the error log."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        # gunicorn's error log, and the app's own loggers for the workers this process forks;
        # once each, though gunicorn sets its logger up again on every reload.
        install(self.error_log.name, *LOGGERS)
        if _log_format() == "json":
            for handler in [*self.error_log.handlers, *self.access_log.handlers]:
                handler.setFormatter(logs.formatter("json", "web"))
                handler.addFilter(logs.ContextFilter())
                handler.addFilter(RedactingFilter())

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        # The request is over and its context gone: its id is in the answer's headers.
        request_id = next(
            (value for name, value in resp.headers if name.lower() == "x-request-id"), None
        )
        with logs.bound(request_id=request_id):
            super().access(resp, req, environ, request_time)

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        for key in _URL_ATOMS:
            value = atoms.get(key)
            if isinstance(value, str):
                atoms[key] = redact(value)
        for key in _CREDENTIAL_ATOMS:
            value = atoms.get(key)
            if isinstance(value, str) and value:
                # "Bearer …": the scheme says how the client authenticated, the rest is the key.
                scheme, _, credentials = value.partition(" ")
                atoms[key] = f"{scheme} {MASK}" if credentials else MASK
        for key in _COOKIE_ATOMS:
            if atoms.get(key):
                atoms[key] = MASK
        return atoms


def _log_format() -> str:
    """PBEM_LOG_FORMAT as the app reads it (the app itself says what is wrong with a setting)."""
    try:
        return load_settings(os.environ).ops.log_format
    except ConfigError:
        return "text"
