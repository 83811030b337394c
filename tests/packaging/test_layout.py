"""pyproject.toml lists every package folder, and the checkout finds the service's files.

Fast and without building anything: the wheel test (test_wheel.py) is the slow, complete check.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pbem import resources

REPO = Path(__file__).resolve().parents[2]
CODE_FOLDERS = ("pbem", "workers")
# Python files that are data: Alembic loads them by path, they are never imported as modules.
DATA_FOLDERS = ("pbem/migrations",)


def _setuptools() -> dict[str, object]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    section: dict[str, object] = config["tool"]["setuptools"]
    return section


def _package_folders() -> set[str]:
    """Dotted names of the folders holding Python modules, as a wheel must ship them."""
    found = set()
    for top in CODE_FOLDERS:
        for module in (REPO / top).rglob("*.py"):
            folder = module.parent.relative_to(REPO)
            if "__pycache__" in folder.parts:
                continue
            if any(
                folder.as_posix() == d or folder.as_posix().startswith(d + "/")
                for d in DATA_FOLDERS
            ):
                continue
            found.add(".".join(folder.parts))
    return found


def test_every_package_folder_is_listed_in_pyproject() -> None:
    setuptools = _setuptools()
    listed = set(setuptools["packages"])  # type: ignore[call-overload]
    mapped = dict(setuptools.get("package-dir", {}))  # type: ignore[call-overload]
    present = _package_folders()
    missing = sorted(present - listed)
    assert not missing, (
        f"pyproject.toml's [tool.setuptools] packages lacks {missing}: "
        "a wheel would leave those modules out. Add them to the list."
    )
    gone = sorted(name for name in listed - present if name not in mapped)
    assert not gone, f"pyproject.toml lists packages that no longer exist: {gone}"
    for package, folder in mapped.items():
        assert package in listed and (REPO / folder).is_dir(), (package, folder)


def test_the_checkout_finds_templates_static_files_and_migrations() -> None:
    assert resources.templates_dir() == REPO / "templates"
    assert (resources.templates_dir() / "pages" / "index.html").is_file()
    assert (resources.templates_dir() / "mail" / "invite.txt").is_file()
    assert (resources.static_dir() / "pbem.css").is_file()
    assert (resources.migrations_dir() / "env.py").is_file()
    assert (resources.migrations_dir() / "alembic.ini").is_file()
    assert list((resources.migrations_dir() / "versions").glob("*.py"))
