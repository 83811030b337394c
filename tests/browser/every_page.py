"""Every page a visitor or a player can open, for the audits that look at all of them (the Nu
checker, axe-core's AAA rules, Lighthouse) and for scripts/screenshots.py.

The pages are made on a served app (tests/browser/conftest.Server): games created through the
domain, then moved on through the JSON API, so that each game page is mid-game, waiting, or over.
Public pages need no token; the rest are opened by the links the emails carry."""

from __future__ import annotations

from dataclasses import dataclass

from pbem import dispatch, links
from pbem.domain import access, starting
from pbem.extensions import db, settings
from pbem.models import Game
from tests.browser.conftest import Server
from tests.browser.seated import Running, advance, running_game

# A game's page far enough in that the board is full of pieces, yet not over.
MID_GAME = {"gorami": 8, "mmw": 30, "marram": 24}
GAMES = [
    ("gorami", {"board": 24}, ["Ann", "Ben"]),
    ("mmw", {}, ["Ann", "Ben"]),
    ("marram", {"variant": "classic", "length": "long"}, ["Ann", "Ben", "Cat", "Dan"]),
]


@dataclass(frozen=True)
class Page:
    name: str  # a file name: artifacts/screenshots/<name>-<size>.png
    path: str
    public: bool  # open to anyone (no token): robots may index it, SEO applies
    status: int = 200
    game: bool = False  # a game page mid-game (Lighthouse's mobile bar is 90 there, not 95)


PUBLIC = [
    Page("home", "/", True),
    Page("home-marram", "/?game=marram", True),
    Page("rules", "/rules", True),
    Page("rules-gorami", "/rules/gorami", True),
    Page("rules-marram", "/rules/marram", True),
    Page("rules-mmw", "/rules/mmw", True),
    Page("signin", "/signin", True),
    Page("not-found", "/no/such/page", True, status=404),
]


def every_page(server: Server) -> list[Page]:
    """The public pages, then one of each page opened by a token, made on `server`."""
    pages = list(PUBLIC)
    pages += _invitation_pages(server)
    for engine, options, names in GAMES:
        running = running_game(server, engine, options, names, seed=7, title=None)
        state = advance(server, running, MID_GAME[engine], seed=3)
        assert state.to_move is not None and state.outcome is None, engine
        mover = running.seat(state.to_move)
        waiting = running.seat((state.to_move + 1) % len(names))
        pages += [
            Page(f"play-{engine}", mover.path, False, game=True),
            Page(f"play-{engine}-waiting", waiting.path, False, game=True),
            Page(f"replay-{engine}", f"{mover.path}/replay/1", False),
        ]
        if engine == "gorami":
            pages += _player_pages(server, running)
    pages += _fresh_and_finished_game(server)
    pages.append(Page("forbidden", "/play/not-a-token", False, status=403))
    return pages


def _invitation_pages(server: Server) -> list[Page]:
    with server.app.app_context():
        config = settings()
        created = starting.create_game(
            config, "marram", {"variant": "animals"}, ["ida@example.org", "jon@example.org"]
        )
        dispatch.send_emails_later(created.outbox_ids)
        game = db.session.get(Game, created.game_id)
        assert game is not None
        seat = game.seats[0]
        invite = links.token_for(config.signing_key, seat, links.INVITE)
        return [
            Page("created", f"/created/{created.game_id}", False),
            Page("invitation", f"/invite/{invite}", False),
        ]


def _player_pages(server: Server, running: Running) -> list[Page]:
    seat = running.seat(0)
    with server.app.app_context():
        config = settings()
        game = db.session.get(Game, running.game_id)
        assert game is not None
        player = game.seats[0].player
        player_id = player.id
        signin = access.signin_token(config, player)
        db.session.commit()
        block = links.player_token(config.signing_key, player_id, "", links.BLOCK)
        mail = links.player_token(config.signing_key, player_id, "", links.MAIL)
        erase = links.player_token(config.signing_key, player_id, player.nonce, links.ERASE)
    return [
        Page("dashboard", seat.home, False),
        Page("play-the-computer", f"{seat.home}/new", False),
        Page("resign", f"{seat.path}/resign", False),
        Page("cancel-refused", f"{seat.path}/cancel", False, status=409),
        Page("mail-settings", f"/mail/{mail}", False),
        Page("signin-link", f"/signin/{signin}", False),
        Page("block", f"/block/{block}", False),
        Page("erase", f"/erase/{erase}", False),
    ]


def _fresh_and_finished_game(server: Server) -> list[Page]:
    """A game's pages before anyone has moved (when it may still be cancelled) and once over."""
    fresh = running_game(server, "gorami", {"board": 16}, ["Eve", "Fay"], seed=11).seat(0)
    over = running_game(server, "gorami", {"board": 16}, ["Gus", "Hal"], seed=12)
    state = advance(server, over, 200, seed=5)
    assert state.outcome is not None
    return [
        Page("play-gorami-first-move", fresh.path, False, game=True),
        Page("cancel", f"{fresh.path}/cancel", False),
        Page("play-gorami-over", over.seat(0).path, False),
    ]
