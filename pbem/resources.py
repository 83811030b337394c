"""Where the service's own files are, in the checkout (or an editable install of it) and in a wheel.

A wheel carries them all inside the `pbem` package: `pbem/static/`, `pbem/migrations/`, and the
checkout's top-level `templates/`, which pyproject.toml maps to `pbem/templates/`. In the checkout
`templates/` stays beside `pbem/`. Flask and Alembic want real folders, and pip always unpacks a
wheel into one, so these are plain paths rather than `importlib.resources` traversables.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import FileSystemLoader

PACKAGE = Path(__file__).resolve().parent


def templates_dir() -> Path:
    """Jinja2 pages and mail: `pbem/templates/` installed from a wheel, else the checkout's."""
    installed = PACKAGE / "templates"
    return installed if installed.is_dir() else PACKAGE.parent / "templates"


def template_loader() -> FileSystemLoader:
    """The one lookup of templates: Flask's pages (`pbem.app`) and the mail a worker renders
    without Flask (`pbem.domain.outbox`) both read `templates_dir()` through it."""
    return FileSystemLoader(str(templates_dir()))


def static_dir() -> Path:
    """The stylesheet and scripts served at `/static/`."""
    return PACKAGE / "static"


def migrations_dir() -> Path:
    """The Alembic environment and revisions (Flask-Migrate's `directory`)."""
    return PACKAGE / "migrations"
