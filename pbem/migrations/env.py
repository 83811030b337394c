"""Alembic's environment for Flask-Migrate: migrations run against the app's own engine."""

import logging
from logging.config import fileConfig
from typing import Any

from alembic import context
from flask import current_app
from sqlalchemy import Engine, MetaData

config = context.config

# A pbem process has set up its logs already (pbem.logs: text or JSON, masked): alembic.ini's
# are for alembic run by hand. The app's own loggers stay alive either way.
if config.config_file_name is not None and not logging.getLogger().handlers:
    fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger("alembic.env")


def get_engine() -> Engine:
    engine: Engine = current_app.extensions["migrate"].db.engine
    return engine


def get_engine_url() -> str:
    return get_engine().url.render_as_string(hide_password=False).replace("%", "%%")


config.set_main_option("sqlalchemy.url", get_engine_url())
target_db = current_app.extensions["migrate"].db


def get_metadata() -> MetaData:
    metadata: MetaData = (
        target_db.metadatas[None] if hasattr(target_db, "metadatas") else target_db.metadata
    )
    return metadata


def run_migrations_offline() -> None:
    """Write the migrations' SQL out instead of running it (needs only the URL)."""
    url = config.get_main_option("sqlalchemy.url")
    context.configure(url=url, target_metadata=get_metadata(), literal_binds=True)

    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on a connection of the app's engine."""

    # An autogenerate that finds no change writes no empty revision.
    def process_revision_directives(context: Any, revision: Any, directives: Any) -> None:
        if getattr(config.cmd_opts, "autogenerate", False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info("No changes in schema detected.")

    conf_args = current_app.extensions["migrate"].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    with get_engine().connect() as connection:
        # SQLite alters a table by copying it into a new one and dropping the old, which its
        # foreign keys would forbid; they are checked again once the migrations are done.
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()  # no transaction left open for Alembic to mistake for its own
        context.configure(connection=connection, target_metadata=get_metadata(), **conf_args)

        with context.begin_transaction():
            context.run_migrations()
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            problems = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            connection.commit()
            if problems:
                raise RuntimeError(f"the migration broke foreign keys: {problems[:5]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
