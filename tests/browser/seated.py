"""Running games made straight through the domain (every seat accepted, players named), moved on
through the JSON move API, for browser tests that look at one position rather than the path to
it. The whole path through invitations and clicks is tests/browser/test_play_pages.py's."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem import games, links
from pbem.domain import starting, views
from pbem.extensions import db, settings
from pbem.models import Game
from tests.browser.conftest import Server


@dataclass(frozen=True)
class SeatLink:
    seat: int
    email: str
    name: str
    path: str  # the game page, /play/<token>
    token: str
    home: str  # the dashboard, /me/<token>


@dataclass(frozen=True)
class Running:
    game_id: str
    engine: str
    seats: list[SeatLink]

    def seat(self, index: int) -> SeatLink:
        return self.seats[index]


def running_game(
    server: Server,
    engine: str,
    options: dict[str, object],
    names: Sequence[str],
    seed: int | None = None,
    title: str | None = None,
) -> Running:
    """A game of `engine` with one seat per name, every invitation accepted; `title` is the
    organiser's name for it."""
    emails = [f"{re.sub(r'[^a-z0-9]', '', name.lower())}@example.org" for name in names]
    with server.app.app_context():
        config = settings()
        created = starting.create_game(
            config, engine, options, emails, seed=seed, names=list(names), title=title
        )
        game = db.session.get(Game, created.game_id)
        assert game is not None
        for seat in list(game.seats):
            starting.accept_invitation(config, seat)
        db.session.expire_all()
        game = db.session.get(Game, created.game_id)
        assert game is not None and game.status == "running", game.status if game else None
        shown = views.names(game)
        seats = []
        for seat in game.seats:
            token = links.token_for(config.signing_key, seat, links.SEAT)
            home = links.player_token(config.signing_key, seat.player.id, seat.player.nonce)
            seats.append(
                SeatLink(
                    seat.seat,
                    seat.player.email,
                    shown[seat.seat],
                    f"/play/{token}",
                    token,
                    f"/me/{home}",
                )
            )
        return Running(game.id, engine, seats)


def state_of(server: Server, game_id: str) -> games.State:
    with server.app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        state = views.load_state(game)
        assert state is not None
        return state


Pick = Callable[[games.State, random.Random], str]


def random_move(state: games.State, rng: random.Random) -> str:
    return rng.choice(state.legal_moves())


def advance(
    server: Server, running: Running, count: int, pick: Pick = random_move, seed: int = 1
) -> games.State:
    """Plays `count` moves through the move API, each by the seat to move; the new state."""
    rng = random.Random(seed)
    client = server.app.test_client()
    state = state_of(server, running.game_id)
    for _ in range(count):
        if state.outcome is not None or state.to_move is None:
            break
        move = pick(state, rng)
        token = running.seats[state.to_move].token
        with server.app.app_context():
            game = db.session.get(Game, running.game_id)
            assert game is not None
            ply = game.ply
        response = client.post(
            f"/api/games/{running.game_id}/moves",
            json={"move": move, "ply": ply},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 202, response.text
        state = state_of(server, running.game_id)
        assert len(state.history) == ply + 1, "the move was not applied at once"
    return state
