"""The suite's two tiers: the default tier (`pytest`, which pyproject.toml gives -m "not audit"),
what a developer runs before each commit, and the audit tier (`pytest -m audit`): browser
audits, long random runs, whole-stack games beyond the smoke path. scripts/test.sh (CI) runs
both, so a case moved to the audit tier is still run by every CI run.

`split` spreads the cases of one parametrised test over the two tiers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def split(
    values: Iterable[T], *, default: Callable[[T], bool], ids: Callable[[T], str]
) -> list[Any]:
    """`values` as pytest parameters: those `default` keeps in the default tier, the others
    marked for the audit tier."""
    return [
        pytest.param(value, id=ids(value), marks=() if default(value) else (pytest.mark.audit,))
        for value in values
    ]


def first_of_each(key: Callable[[T], object], values: Iterable[T]) -> Callable[[T], bool]:
    """True for the first value of each `key` (each engine's first case, say), else False."""
    firsts: dict[object, T] = {}
    for value in values:
        firsts.setdefault(key(value), value)
    kept = {id(value) for value in firsts.values()}
    return lambda value: id(value) in kept
