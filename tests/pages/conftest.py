"""The interactive page's server side runs in the service's app."""

from __future__ import annotations

import pytest
from flask import Flask

from tests.pages.integrate import integrate


@pytest.fixture(autouse=True)
def interactive_pages(app: Flask) -> None:
    integrate(app)
