"""The refusals of the domain: each carries an API `code`, an HTTP `status` and a message for
people. Pages and the API render them through one handler (pbem.web.errors)."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: `code` and `status` for the API, the message for people."""

    code = "bad_request"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SetupError(ServiceError):
    code = "bad_setup"


class NotFound(ServiceError):
    code = "not_found"
    status = 404


class GameNotStarted(ServiceError):
    code = "game_not_started"
    status = 409


class GameOver(ServiceError):
    code = "game_over"
    status = 409


class OutOfTime(ServiceError):
    """A move stored after its turn's deadline."""

    code = "out_of_time"
    status = 409


class Conflict(ServiceError):
    """Something else happened to the game first (a move, a timeout, a resignation)."""

    code = "conflict"
    status = 409


class StalePly(ServiceError):
    code = "stale_ply"
    status = 409


class NotYourTurn(ServiceError):
    code = "not_your_turn"
    status = 409


class MoveRefused(ServiceError):
    status = 422

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class NoSuchPosition(NotFound):
    code = "no_such_ply"
