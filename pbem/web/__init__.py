"""The web side: one blueprint per feature."""

from __future__ import annotations

from flask import Flask


def register_blueprints(app: Flask) -> None:
    pass
