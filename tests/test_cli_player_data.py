"""A player's data: `pbem admin player export` gives everything stored about them (nothing a
running game hides), `erase` ends their games by each game's rules and removes their address and
name from every table, and the address is not invited again until its owner asks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_migrate import upgrade
from sqlalchemy import select

from pbem import cli, links
from pbem.app import create_app
from pbem.extensions import db, settings
from pbem.models import Game, GameEvent, OutboxMessage, Player, Seat
from pbem.ops.player_data import FORMER_PLAYER
from tests.support.restored import move
from tests.web.flow import create, start, turn_link

ANN, BOB, CAT = "ann@example.org", "bob@example.org", "cat@example.org"


@pytest.fixture
def games(cli_env: Path) -> Iterator[tuple[Flask, dict[str, str]]]:
    """Ann in a running two-player game (a move each made), a running three-player Marram game, and
    a game still gathering players; her name is Annabel."""
    app = create_app({"PBEM_RATE_LIMITS": "off"})
    with app.app_context():
        upgrade()
        client = app.test_client()
        duel = start(client, emails=[ANN, BOB])
        for _ in range(2):  # one move each
            move(client, duel.id, turn_link(duel))
        trio = start(client, "marram", emails=[ANN, BOB, CAT])
        waiting = create(client, emails=[ANN, CAT])
        ann = db.session.execute(select(Player).where(Player.email == ANN)).scalar_one()
        ann.name = "Annabel"
        db.session.commit()
        yield app, {"duel": duel.id, "trio": trio.id, "waiting": waiting.id}
        db.session.remove()
        db.engine.dispose()


def test_export_gives_everything_stored_and_nothing_hidden(
    games: tuple[Flask, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    app, ids = games
    assert cli.main(["admin", "player", "export", ANN]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "pbem-player/1"
    assert data["player"]["email"] == ANN and data["player"]["name"] == "Annabel"
    by_game = {g["game"]: g for g in data["games"]}
    assert set(by_game) == set(ids.values())
    duel = by_game[ids["duel"]]
    assert [s["status"] for s in duel["submissions"]] == ["applied"]
    # A running game's record has no seed: it orders the bag and deals the hands.
    for game in data["games"]:
        assert "seed" not in game["record"]
    assert {e["kind"] for e in data["emails"]} >= {"confirm", "turn"}
    with app.app_context():
        secrets = [s.nonce for s in db.session.execute(select(Seat)).scalars()]
        secrets += [p.nonce for p in db.session.execute(select(Player)).scalars()]
    text = json.dumps(data)
    assert not any(secret in text for secret in secrets)
    assert "/play/" not in text and "/me/" not in text


def test_erase_ends_the_games_by_their_rules_and_forgets_the_player(
    games: tuple[Flask, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    app, ids = games
    with app.app_context():
        old_link = _link_of(ids["trio"], ANN)
    assert cli.main(["admin", "player", "erase", ANN]) == 2
    assert "give --yes" in capsys.readouterr().err
    assert cli.main(["admin", "player", "erase", ANN, "--yes", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert sorted(done["resigned"]) == sorted([ids["duel"], ids["trio"]])
    assert done["cancelled"] == [ids["waiting"]]
    with app.app_context():
        db.session.expire_all()
        duel, trio, waiting = (db.session.get(Game, ids[k]) for k in ("duel", "trio", "waiting"))
        assert duel is not None and duel.status == "finished"  # two players: Bob wins
        assert trio is not None and trio.status == "running"  # three: the others play on
        assert waiting is not None and waiting.status == "cancelled"
        ann = db.session.execute(select(Player).where(Player.erased_at.is_not(None))).scalar_one()
        assert (ann.email, ann.name) == (None, FORMER_PLAYER)
        # No row of any table mentions her address or name any more.
        for row in db.session.execute(select(OutboxMessage)).scalars():
            for text in (row.to, row.subject, row.text, row.html):
                assert ANN not in text and "Annabel" not in text, row.kind
        for event in db.session.execute(select(GameEvent)).scalars():
            assert ANN not in json.dumps(event.detail) and "Annabel" not in json.dumps(event.detail)
        client: FlaskClient = app.test_client()
        # Her links are withdrawn; the others read the game with her as a former player.
        assert client.get(old_link).status_code == 403
        bob_link = _link_of(ids["duel"], BOB)
        assert FORMER_PLAYER in client.get(bob_link).get_data(as_text=True)
        # Nobody may invite her again until she asks.
        refused = client.post("/", data={"game": "countdown", "emails": f"{BOB}\n{ANN}"})
        assert "asked pbem never to email them" in refused.get_data(as_text=True)
    assert cli.main(["admin", "player", "unblock", ANN]) == 0
    assert f"{ANN} may be invited again" in capsys.readouterr().out
    with app.app_context():
        again = app.test_client().post("/", data={"game": "countdown", "emails": f"{BOB}\n{ANN}"})
        assert again.status_code == 303


def _link_of(game_id: str, address: str) -> str:
    """The seat link of the latest email to `address` about the game."""
    rows = db.session.execute(
        select(OutboxMessage).where(OutboxMessage.game_id == game_id, OutboxMessage.to == address)
    ).scalars()
    links = [re.findall(r"http://pbem\.test(/play/[^\s\"<]+)", row.text) for row in rows]
    return [found for found in links if found][-1][0]


def test_the_games_page_downloads_the_same_data(games: tuple[Flask, dict[str, str]]) -> None:
    app, ids = games
    with app.app_context():
        ann = db.session.execute(select(Player).where(Player.email == ANN)).scalar_one()
        page = links.player_url(settings(), ann.id, ann.nonce).removeprefix("http://pbem.test")
        client = app.test_client()
        assert "download>download your data</a>" in client.get(page).get_data(as_text=True)
        response = client.get(f"{page}/data")
        assert response.status_code == 200
        assert response.headers["Content-Disposition"] == 'attachment; filename="pbem-data.json"'
        assert response.headers["Cache-Control"] == "no-store"
        data = response.get_json()
        assert data["player"]["email"] == ANN
        assert {g["game"] for g in data["games"]} == set(ids.values())
        assert client.get(f"{page}x/data").status_code == 403
