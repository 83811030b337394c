"""The `pbem` command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from pbem import cli


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


def _games(tmp_path: Path) -> list[tuple[str, str]]:
    engine = create_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    with engine.connect() as connection:
        rows = connection.execute(text("select engine, options from games")).all()
    engine.dispose()
    return [(row[0], row[1]) for row in rows]


def test_new_game_with_options(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["new-game", "countdown", "--pile", "21", "--actions=2", "a@example.org", "b@example.org"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "invitations to a@example.org, b@example.org" in out
    assert _games(env) == [("countdown", '{"pile": 21, "actions": 2}')]
    assert len(list((env / "outbox").glob("*-invite.eml"))) == 2


def test_new_game_refuses_bad_options_clearly(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["new-game", "countdown", "--pile", "8", "a@example.org", "b@example.org"])
    assert code == 2
    assert "option pile='8' is not allowed; choose 10, 5, 21" in capsys.readouterr().err
    assert cli.main(["new-game", "countdown", "--colour", "red", "a@x.org", "b@x.org"]) == 2
    assert "unknown option colour" in capsys.readouterr().err
    assert _games(env) == []


def _names(tmp_path: Path) -> dict[str, str | None]:
    engine = create_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    with engine.connect() as connection:
        rows = connection.execute(text("select email, name from players")).all()
    engine.dispose()
    return {row[0]: row[1] for row in rows}


def test_new_game_takes_players_as_name_and_address(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        [
            "new-game",
            "countdown",
            "Alice Smith <alice@example.org>",
            '"Jones, Bob" <bob@example.org>',
            "carol@example.org",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "invitations to alice@example.org, bob@example.org, carol@example.org" in out
    assert _names(env) == {
        "alice@example.org": "Alice Smith",
        "bob@example.org": "Jones, Bob",
        "carol@example.org": None,
    }
    # A second game's names never replace those the players have.
    assert cli.main(["new-game", "countdown", "Al <alice@example.org>", "Dan <d@example.org>"]) == 0
    assert _names(env)["alice@example.org"] == "Alice Smith"
    assert _names(env)["d@example.org"] == "Dan"


@pytest.mark.parametrize(
    ("player", "reason"),
    [
        ("Alice <alice@example.org", "is not one player"),
        ("Alice <alice@example.org>, Bob <bob@example.org>", "is not one player"),
        ('"bob@example.org" <alice@example.org>', "must not carry an address"),
        (f"{'A' * 41} <alice@example.org>", "at most 40 characters"),
        ("Alice Smith", "is not an email address"),
    ],
)
def test_new_game_refuses_a_player_it_cannot_read(
    env: Path, capsys: pytest.CaptureFixture[str], player: str, reason: str
) -> None:
    assert cli.main(["new-game", "countdown", player, "b@example.org"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("pbem new-game: ") and reason in last
    # Nothing made: a player it cannot read is refused before the database is touched.
    assert not (env / "cli.db").exists() or _games(env) == []
    assert not list((env / "outbox").glob("*.eml"))


def test_rotate_links(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["new-game", "countdown", "a@example.org", "b@example.org"])
    game_id = capsys.readouterr().out.split()[1].rstrip(":")
    assert cli.main(["rotate-links", game_id, "1"]) == 0
    assert len(list((env / "outbox").glob("*-links.eml"))) == 1
    assert cli.main(["rotate-links", game_id, "7"]) == 2
    assert "has no seat 7" in capsys.readouterr().err


def test_rotate_every_link_of_a_player(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["new-game", "countdown", "a@example.org", "b@example.org"])
    cli.main(["new-game", "countdown", "c@example.org", "a@example.org"])
    capsys.readouterr()
    assert cli.main(["rotate-links", "--player", "a@Example.ORG"]) == 0
    assert "every link revoked" in capsys.readouterr().out
    (mail,) = (env / "outbox").glob("*-signedout.eml")
    assert "/me/" in mail.read_text()
    assert cli.main(["rotate-links", "--player", "nobody@example.org", "--quiet"]) == 2
    assert "No player has the address" in capsys.readouterr().err
    assert cli.main(["rotate-links"]) == 2
    assert "give GAME_ID SEAT, or --player EMAIL" in capsys.readouterr().err


def test_db_upgrade_creates_the_schema(env: Path) -> None:
    assert cli.main(["db", "upgrade"]) == 0
    engine = create_engine(f"sqlite:///{env / 'cli.db'}")
    tables = set(inspect(engine).get_table_names())
    engine.dispose()
    assert {"players", "games", "seats", "moves", "submissions", "outbox"} <= tables


def test_a_production_start_without_secret_is_refused(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PBEM_ENV", "production")
    monkeypatch.delenv("SECRET_KEY")
    assert cli.main(["serve", "--port", "1"]) == 2
    assert "SECRET_KEY is not set" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "host", "outbox"),
    [
        ([], "127.0.0.1", "listed on this machine at http://127.0.0.1:5000/outbox"),
        (["--host", "0.0.0.0"], "0.0.0.0", "listed on this machine at http://127.0.0.1:5000/"),
        (["--host", "::1"], "::1", "listed on this machine at http://[::1]:5000/outbox"),
        (["--host", "192.0.2.7"], "192.0.2.7", "/outbox answers loopback only"),
    ],
)
def test_serve_listens_on_loopback_unless_told(
    env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    host: str,
    outbox: str,
) -> None:
    import werkzeug.serving

    bound: list[tuple[str, int]] = []
    # The embedded default's background threads end at once.
    monkeypatch.setattr(cli, "_every", lambda *args: None)
    monkeypatch.setattr(cli, "_bots", lambda *args: None)
    monkeypatch.setattr(
        werkzeug.serving, "run_simple", lambda host, port, app, **_: bound.append((host, port))
    )
    assert cli.main(["serve", *argv]) == 0
    assert bound == [(host, 5000)]
    assert outbox in capsys.readouterr().err


def test_play_is_the_terminal_game(monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem import terminal

    seen: list[list[str]] = []
    monkeypatch.setattr(terminal, "main", lambda argv: seen.append(argv) or 0)
    assert cli.main(["play", "gorami", "--board", "16"]) == 0
    assert seen == [["gorami", "--board", "16"]]


def test_worker_and_beat_pass_their_options_to_celery(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(
        cli,
        "_celery_command",
        lambda args: seen.append((args.celery_command, args.celery_args)) or 0,
    )
    assert cli.main(["worker", "--loglevel", "INFO", "--concurrency", "2"]) == 0
    assert cli.main(["beat", "--loglevel", "INFO"]) == 0
    assert seen == [
        ("worker", ["--loglevel", "INFO", "--concurrency", "2"]),
        ("beat", ["--loglevel", "INFO"]),
    ]
