"""What a test does when a real part it needs is missing: skip on a developer's machine, fail
under CI (CI=true), where the test command installs and starts every part."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI must run every test: scripts/test.sh provides it)", False)
    pytest.skip(reason)
