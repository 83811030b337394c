"""The refusals of the domain: each carries an API `code`, an HTTP `status` and a message for
people. Pages and the API render them through one handler (pbem.web.errors).

A refusal names its code and status in its class line (`class GameOver(ServiceError,
code="game_over", status=409)`), so each kind reads as one declaration, here and at the edges
that add their own (`pbem.web.limits`, `pbem.web.ratelimits`).
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refused request: `code` and `status` for the API, the message for people."""

    code = "bad_request"
    status = 400

    def __init_subclass__(
        cls, code: str | None = None, status: int | None = None, **kwargs: Any
    ) -> None:
        # A subclass that names neither keeps its parent's (NoSuchPosition is a NotFound).
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        if status is not None:
            cls.status = status

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SetupError(ServiceError, code="bad_setup"):
    """Something a new game, a name or a setting was given cannot be used."""


class NotFound(ServiceError, code="not_found", status=404):
    """No such game, seat, submission or page (someone else's looks the same)."""


class GameNotStarted(ServiceError, code="game_not_started", status=409):
    """The game is still gathering its players."""


class GameOver(ServiceError, code="game_over", status=409):
    """The game has ended: nothing more can be played in it."""


class OutOfTime(ServiceError, code="out_of_time", status=409):
    """A move stored after its turn's deadline."""


class Conflict(ServiceError, code="conflict", status=409):
    """Something else happened to the game first (a move, a timeout, a resignation)."""


class StalePly(ServiceError, code="stale_ply", status=409):
    """A move for a ply the game has left."""


class NotYourTurn(ServiceError, code="not_your_turn", status=409):
    """Another seat is to move."""


class MoveRefused(ServiceError, status=422):
    """The engine refused the move; `code` says whether it was unreadable or illegal."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class NoSuchPosition(NotFound, code="no_such_ply"):
    """A past position the game has not reached."""
