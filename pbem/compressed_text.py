"""A text column stored zlib-compressed: the outbox's text and HTML bodies.

A turn email's HTML is some 4.5 kB of inline-styled markup and its text 2 kB; SQLite (the
embedded default) keeps them as they are, which made them most of what a move leaves in the file
(bench/RESULTS.md). Compressed they take 40 % of that (6.2 kB became 2.5). PostgreSQL's TOAST
would compress a long text itself, but only above 2 kB and less tightly. The empty string stays
empty bytes, so that "has a body" is `length(column) > 0` on both databases (the sweep's pruning
and its partial index).
"""

from __future__ import annotations

import zlib
from typing import Any

from sqlalchemy import LargeBinary
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

# zlib's default level: 9 saves under 1 % more on a turn email.
LEVEL = 6


def pack(value: str | None) -> bytes | None:
    """The bytes stored for `value`."""
    if value is None:
        return None
    return zlib.compress(value.encode("utf-8"), LEVEL) if value else b""


def unpack(value: bytes | None) -> str | None:
    """The text `value` stored."""
    if value is None:
        return None
    return zlib.decompress(bytes(value)).decode("utf-8") if value else ""


class CompressedText(TypeDecorator[str]):
    """Text in Python, zlib-compressed bytes in the database."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> bytes | None:
        return pack(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        return unpack(value)
