"""The endings the service decides read in the language of the page or letter being written,
their seats left as placeholders for the players' names."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.domain import outcomes
from pbem.games import fill_names


def _said(language: str, reason: str, seat: int | None, players: int = 2) -> str:
    outcome = outcomes.ended_by(reason, seat, players, [0] * players)
    with i18n.using(language):
        sentence = outcomes.sentence(outcome)
    assert sentence is not None
    return fill_names(sentence, ["Ann", "Ben"])


@pytest.mark.parametrize(
    ("language", "resigned", "timeout", "draw"),
    [
        ("en", "Ann resigned; Ben wins", "Ben ran out of time; Ann wins", "Drawn by agreement"),
        (
            "fr",
            "Ann a abandonné ; Ben gagne",
            "Ben a épuisé son temps de réflexion ; Ann gagne",
            "Remise d’un commun accord",
        ),
        (
            "nl",
            "Ann heeft opgegeven; Ben wint",
            "Ben had geen tijd meer; Ann wint",
            "Remise in onderling overleg",
        ),
        (
            "da",
            "Ann har opgivet; Ben vinder",
            "Ben løb tør for tid; Ann vinder",
            "Remis efter aftale",
        ),
    ],
)
def test_each_ending_in_each_language(
    language: str, resigned: str, timeout: str, draw: str
) -> None:
    assert _said(language, outcomes.RESIGNATION, 0) == resigned
    assert _said(language, outcomes.TIMEOUT, 1) == timeout
    assert _said(language, outcomes.DRAW_AGREED, None) == draw


def test_the_engines_endings_are_left_to_them() -> None:
    assert outcomes.sentence(None) is None
    assert outcomes.sentence({"reason": "most fish", "winners": [0]}) is None
