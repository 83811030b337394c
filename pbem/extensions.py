"""Flask extensions, created unbound and `init_app`-ed by the app factory, and the settings of
the app in the current context."""

from __future__ import annotations

from flask import current_app
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

from pbem.config import Settings

# Named constraints so Alembic can alter them later (SQLite needs names for batch migrations).
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


db = SQLAlchemy(model_class=Base)
# Batch mode lets later migrations alter SQLite tables (it rebuilds them).
migrate = Migrate(render_as_batch=True, compare_type=True)


def settings() -> Settings:
    """The settings of the app in the current context (the app factory stores them)."""
    value: Settings = current_app.config["PBEM"]
    return value
