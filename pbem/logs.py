"""Logs: one shape for every process (web, workers, beat, the CLI), text by default or, with
`PBEM_LOG_FORMAT=json`, one JSON object a line (python-json-logger), each carrying what it is
about: the request id, and the game, seat and submission where there is one.

The context travels with the work: `bind` sets it for this thread (a contextvar), the web binds
each request's id and the seat its link names, `workers.logging` binds the request id a task
was queued under (the publishing process puts it in the task's headers) and the task's own id.
Every line goes through `pbem.redact` on the handler, so no token, link with a token or whole
email address reaches a log, whichever library wrote the line.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from pbem.redact import RedactingFilter, redact

# What a line may be about, as JSON keys (and LogRecord attributes).
FIELDS = ("request_id", "game_id", "seat", "submission_id", "outbox_id", "task", "task_id")
# The Celery message header a task's request id travels in.
REQUEST_ID_HEADER = "pbem_request_id"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

_context: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar(
    "pbem_log_context", default=MappingProxyType({})
)


def bind(**fields: Any) -> contextvars.Token[Mapping[str, Any]]:
    """Add `fields` to what this thread's lines are about, until `unbind` with the token."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"no log field {', '.join(sorted(unknown))}")
    return _context.set({**_context.get(), **fields})


def unbind(token: contextvars.Token[Mapping[str, Any]]) -> None:
    _context.reset(token)


@contextmanager
def bound(**fields: Any) -> Iterator[None]:
    token = bind(**fields)
    try:
        yield
    finally:
        unbind(token)


def current(field: str) -> Any:
    return _context.get().get(field)


class ContextFilter(logging.Filter):
    """Puts the bound fields on each record, where the JSON formatter finds them."""

    def filter(self, record: logging.LogRecord) -> bool:
        for field, value in _context.get().items():
            if value is not None and not hasattr(record, field):
                setattr(record, field, value)
        return True


class _MaskedJson(JsonFormatter):
    """python-json-logger's formatter, its tracebacks masked too (it formats them anew, past
    the masked copy `RedactingFilter` leaves on the record)."""

    def formatException(self, ei: Any) -> str | list[str]:  # type: ignore[override]
        return _masked(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str | list[str]:  # type: ignore[override]
        return _masked(super().formatStack(stack_info))


def _masked(text: str | list[str]) -> str | list[str]:
    return redact(text) if isinstance(text, str) else [redact(line) for line in text]


def formatter(log_format: str, role: str) -> logging.Formatter:
    if log_format == "json":
        return _MaskedJson(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            static_fields={"process": role},
            json_ensure_ascii=False,
        )
    return logging.Formatter(TEXT_FORMAT)


class _StandardError:
    """Standard error as it is when a line is written (a test or a daemon may replace it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def handler(log_format: str, role: str, stream: Any = None) -> logging.Handler:
    """A handler writing to `stream` (standard error) in the format, masked and with context."""
    out = logging.StreamHandler(stream or _StandardError())
    out.setFormatter(formatter(log_format, role))
    out.addFilter(ContextFilter())
    out.addFilter(RedactingFilter())
    setattr(out, _OURS, True)
    return out


_OURS = "pbem_logs"


def configure(log_format: str, role: str, level: int = logging.INFO) -> None:
    """The root logger's handler for a process of `role` (web, worker, cli), replacing the one a
    previous call set; handlers others set (a test runner's) stay."""
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, _OURS, False) or (
            isinstance(old, logging.StreamHandler) and (old.stream in (sys.stderr, sys.stdout))
        ):
            root.removeHandler(old)
    root.addHandler(handler(log_format, role))
    root.setLevel(level)
    # Warnings (a library's deprecation, Celery's about running as root) as log lines too.
    logging.captureWarnings(True)
    # Alembic's configuration would otherwise set up logging of its own at each migration.
    logging.getLogger("alembic").setLevel(logging.WARNING)
