"""Nothing hidden reaches anyone during a game, on any surface: for every engine and variant, a
random game is played through the service and, every 7th ply and at the last, each seat's every
answer (API, pages, record, drawings, past positions, emails and their picture, the answer to a
reply by mail, refusals) is gathered twice: from the game, and from a twin the seat cannot tell
apart (another bag, other hands, another seed). They must be the same bytes
(tests/support/surfaces.py; the longer walk is bench/hidden_walk.py)."""

from __future__ import annotations

import pytest
import time_machine
from flask import Flask

from tests.support import surfaces, tiers

CASES = surfaces.cases(range(3))
# Each engine's first case in the default tier, the other cases in the audit tier.
TIERED = tiers.split(
    CASES, default=tiers.first_of_each(lambda c: c.engine, CASES), ids=lambda c: c.name
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.mark.parametrize("case", TIERED)
def test_every_answer_is_a_function_of_the_seats_view(app: Flask, case: surfaces.Case) -> None:
    with time_machine.travel(surfaces.AT, tick=False):
        checked, found = surfaces.walk(app, case)
    assert checked >= 1
    assert not found, "\n".join(found)


def test_the_walk_sees_what_a_seat_must_not(app: Flask) -> None:
    """The walk is not blind: a record that still carried the seed would be caught."""
    from pbem.domain import views

    case = surfaces.Case("marram", {"variant": "classic", "length": "short"}, 3, 1)
    original = views.game_record

    def leaky(game: object, viewer: int | None = None) -> dict[str, object]:
        record = original(game, viewer)  # type: ignore[arg-type]
        return {**record, "seed": game.seed}  # type: ignore[attr-defined]

    with time_machine.travel(surfaces.AT, tick=False):
        game_id = surfaces.start(case)
        views.game_record = leaky  # type: ignore[assignment]
        try:
            found = surfaces.differences(app, game_id, 1)
        finally:
            views.game_record = original
    assert any("api.record" in line for line in found), found
