"""Everything one seat can fetch of a running game, gathered for the hidden-information walk
(tests/security/test_hidden_information.py, bench/hidden_walk.py).

The walk plays a random game through the service and, at chosen plies, gathers for each seat
every answer it can get: the JSON API, the game and replay pages, the record, the board
drawings, past positions, the turn, reminder and digest emails and the mail picture, the answer
to a reply asking for the moves, and the messages of refused moves. Then it swaps the game for a
twin its seat cannot tell apart (the engine's `sample`: another bag, other hands, another seed;
past positions sampled alike) and gathers again. Every answer must be byte for byte the same:
what a seat is given is a function of its view alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from pbem import games, links, pictures
from pbem.domain import letters, moves, outbox, starting, views
from pbem.domain.clocks import parse_clock
from pbem.extensions import db, settings
from pbem.links import reply_address
from pbem.mailin.handle import handle_message
from pbem.models import Game, OutboxMessage

# A Wednesday noon, far from a weekend: every answer is gathered at this instant.
AT = datetime(2026, 12, 2, 12, 0)
PLAYERS = ["ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"]
EVERY = 7


@dataclass(frozen=True)
class Case:
    """One random game: an engine, its options, the number of players and the seed."""

    engine: str
    options: dict[str, Any]
    players: int
    seed: int

    @property
    def name(self) -> str:
        shown = "-".join(str(v) for v in self.options.values()) or "standard"
        return f"{self.engine}-{shown}-{self.players}p-seed{self.seed}"


def cases(seeds: range) -> list[Case]:
    """Every engine and option set (each variant) with each seed; the seed also picks the
    number of players, so three seeds see two, three and four."""
    found = []
    for name in games.names():
        if name == "countdown":
            continue
        game = games.get(name)
        combos: list[dict[str, Any]] = [{}]
        for option, values in game.options.items():
            combos = [{**c, option: v} for c in combos for v in values]
        counts = list(range(game.min_players, game.max_players + 1))
        for options in combos:
            for seed in seeds:
                found.append(Case(name, options, counts[seed % len(counts)], seed))
    return found


def start(case: Case) -> str:
    """The game of `case`, started with every seat accepted; its id."""
    config = settings()
    created = starting.create_game(
        config,
        case.engine,
        dict(case.options),
        PLAYERS[: case.players],
        clock=parse_clock("days:3"),
        seed=case.seed,
    )
    game = views_game(created.game_id)
    for seat in list(game.seats):
        if seat.accepted_at is None:
            starting.accept_invitation(config, seat)
    return created.game_id


def views_game(game_id: str) -> Game:
    """The game as stored now."""
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game


def play_random(game_id: str, rng: random.Random) -> bool:
    """One random legal move by the seat to move, stored and applied; False when it is over."""
    game = views_game(game_id)
    if game.status != "running" or game.to_move is None:
        return False
    state = views.load_state(game)
    assert state is not None
    move = rng.choice(state.legal_moves())
    submission = moves.submit_move(game.seats[game.to_move], move, game.ply)
    moves.apply_moves(settings(), [submission])
    return True


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _http(
    client: FlaskClient, game_id: str, seat: Any, ply: int, illegal: str | None
) -> dict[str, bytes]:
    token = links.seat_url(settings(), seat).rsplit("/", 1)[1]
    api = f"/api/games/{game_id}"
    steps = sorted({0, max(0, ply - 1), ply})
    paths = {
        "page": (f"/play/{token}", {}),
        "api.game": (api, _bearer(token)),
        "api.legal": (f"{api}/legal", _bearer(token)),
        "api.history": (f"{api}/history", _bearer(token)),
        "api.record": (f"{api}/record", _bearer(token)),
        "api.board.svg": (f"{api}/board.svg", _bearer(token)),
        "record.json": (f"/games/{game_id}/record.json?token={token}", {}),
        **{f"api.positions/{k}": (f"{api}/positions/{k}", _bearer(token)) for k in steps},
        **{f"replay/{k}": (f"/play/{token}/replay/{k}", {}) for k in steps},
    }
    found = {}
    for name, (path, headers) in paths.items():
        answer = client.get(path, headers=headers, follow_redirects=True)
        found[name] = f"{answer.status_code}\n".encode() + answer.data
    # Refused moves: each message must say no more than the seat may know. None of them can be
    # played: nonsense, a move for a ply the game has left, and a move legal at the start but
    # not now (when there is one).
    probes = [("junk", "zz", ply), ("stale", "zz", ply + 1)]
    if illegal is not None:
        probes.append(("illegal", illegal, ply))
    for name, move, at in probes:
        answer = client.post(f"{api}/moves", json={"move": move, "ply": at}, headers=_bearer(token))
        found[f"api.moves.{name}"] = f"{answer.status_code}\n".encode() + answer.data
        page = client.post(f"/play/{token}", data={"move": move, "ply": str(at)})
        found[f"page.moves.{name}"] = f"{page.status_code}\n".encode() + page.data
    return found


def illegal_now(game_id: str) -> str | None:
    """A move legal at the start of the game and not now, if there is one: the same probe for
    the game and its twin (read from the game itself)."""
    game = views_game(game_id)
    first, now = views.position_after(game, 0), views.load_state(game)
    assert first is not None and now is not None
    legal = set(now.legal_moves())
    return next((m for m in first.legal_moves() if m not in legal), None)


def _mail(game_id: str, seat: Any) -> dict[str, bytes]:
    """The turn, reminder and digest emails the seat would get now, and the mail picture."""
    config = settings()
    game = views_game(game_id)
    state = views.load_state(game)
    assert state is not None
    who = views.names(game)
    info = views.SeatInfo.of(seat)
    facts = views.GameFacts(
        game.id,
        game.engine,
        game.status,
        game.ply,
        game.to_move,
        game.thread_message_id,
        game.outcome,
        title=game.title,
    )
    recent = views.recent_moves(db.session.connection(), game.id, who)
    deadline = game.deadline or AT
    written = {
        "mail.turn": letters.turn(config, facts, info, state, who, recent, deadline=deadline),
        "mail.reminder": letters.reminder(config, facts, info, who, deadline, 24.0),
        "mail.digest": letters.digest(config, seat.player, [game], 7),
    }
    found = {}
    for name, letter in written.items():
        subject, text, html = outbox.render(letter.kind, letter.context)
        found[name] = "\n".join([subject, text, html]).encode()
    pictures.cache_clear()
    found["mail.picture.png"] = pictures.board_png(game.engine, state, seat.seat, who)
    found["mail.picture.alt"] = pictures.alt_text(game.engine, state, seat.seat, who).encode()
    return found


def _moves_by_mail(game_id: str, seat: Any) -> dict[str, bytes]:
    """The answer to a reply saying "moves" (the legal moves to the seat to move, a refusal to
    the others); the answer's row is removed again so that nothing else changes."""
    config = settings()
    game = views_game(game_id)
    info = views.SeatInfo.of(seat)
    to = reply_address(config, info, game.ply)
    raw = (
        f"From: {seat.player.email}\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
        f"Message-ID: <walk-{game.ply}-{seat.seat}@example.org>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nmoves\r\n"
    ).encode()
    outcome = handle_message(config, raw)
    found = {"mail-in.outcome": f"{outcome.status} {outcome.detail}".encode()}
    for row_id in outcome.outbox_ids:
        row = db.session.get(OutboxMessage, row_id)
        assert row is not None
        found["mail-in.answer"] = "\n".join([row.subject, row.text, row.html or ""]).encode()
        db.session.delete(row)
    db.session.commit()
    return found


def gather(
    app: Flask, game_id: str, seat_number: int, illegal: str | None = None
) -> dict[str, bytes]:
    """Every answer `seat_number` can get of the game as it stands; `illegal` is a move to try
    that must be refused."""
    game = views_game(game_id)
    seat = game.seats[seat_number]
    found = _http(app.test_client(), game_id, seat, game.ply, illegal)
    found.update(_mail(game_id, views_game(game_id).seats[seat_number]))
    found.update(_moves_by_mail(game_id, views_game(game_id).seats[seat_number]))
    return found


@contextmanager
def twin(game_id: str, seat: int, seed: int) -> Iterator[None]:
    """The game swapped for one `seat` cannot tell apart: its position sampled from the seat's
    view, another seed, and every past position sampled from the seat's view of it then. The
    true game is put back afterwards."""
    game = views_game(game_id)
    true_state, true_seed = game.state, game.seed
    engine = views.engine(game)
    past = list(views.replay(game))
    state = engine.from_json(true_state)
    sampled = state.sample(seat, random.Random(f"twin:{seed}"))
    assert sampled.view(seat) == state.view(seat)
    twins = [s.sample(seat, random.Random(f"twin:{seed}:{k}")) for k, s in enumerate(past)]
    original: Callable[[Any], Iterator[games.State]] = views.replay
    game.state = sampled.to_json()
    game.seed = true_seed ^ 0x5EED
    db.session.commit()
    views.replay = lambda g: iter(twins) if g.id == game_id else original(g)  # type: ignore[assignment]
    try:
        yield
    finally:
        views.replay = original  # type: ignore[assignment]
        game = views_game(game_id)
        game.state, game.seed = true_state, true_seed
        db.session.commit()


def differences(app: Flask, game_id: str, seed: int) -> list[str]:
    """The answers that change when a seat's twin stands in for the game, for every seat (empty
    when nothing hidden reaches anyone)."""
    game = views_game(game_id)
    illegal = illegal_now(game_id)
    found = []
    for seat in range(len(game.seats)):
        real = gather(app, game_id, seat, illegal)
        with twin(game_id, seat, seed):
            other = gather(app, game_id, seat, illegal)
        found += [
            f"ply {game.ply}, seat {seat}: {name}"
            for name in sorted(real.keys() | other.keys())
            if real.get(name) != other.get(name)
        ]
    return found


def walk(app: Flask, case: Case, every: int = EVERY) -> tuple[int, list[str]]:
    """Play `case` to its end, checking every `every`-th ply and the last; the plies checked
    and the differences found."""
    game_id = start(case)
    rng = random.Random(case.seed)
    checked = 0
    found: list[str] = []
    while True:
        game = views_game(game_id)
        ply = game.ply
        over = game.status != "running"
        if over:
            break
        state = views.load_state(game)
        assert state is not None
        # The last position before the end: checked whatever its number.
        last = state.outcome is None and _ends_next(state, rng)
        if ply % every == 0 or last:
            found += differences(app, game_id, case.seed * 1000 + ply)
            checked += 1
        if not play_random(game_id, rng):
            break
    return checked, found


def _ends_next(state: games.State, rng: random.Random) -> bool:
    """Whether the move the walk will play next ends the game (peeking at a copy of `rng`)."""
    peek = random.Random()
    peek.setstate(rng.getstate())
    return state.play(peek.choice(state.legal_moves())).outcome is not None
