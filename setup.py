"""The one build step pyproject.toml cannot say: the gettext catalogs (`.po`) compiled to the
`.mo` files the service reads, so that the wheel carries them (pbem.i18n). Everything else about
the package is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted((ROOT / "pbem").glob("**/translations/*/LC_MESSAGES/*.po")):
            with po.open("rb") as source:
                catalog = read_po(source)
            with po.with_suffix(".mo").open("wb") as target:
                write_mo(target, catalog, use_fuzzy=False)
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogs})
