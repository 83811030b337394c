"""`pbem new-game --title NAME`: the game's name, a service option like --clock, checked before
anything is made."""

from __future__ import annotations

from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbem import cli

PLAYERS = ["a@example.org", "b@example.org"]


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


def _titles(tmp_path: Path) -> list[tuple[str, str | None]]:
    engine = create_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("select id, title from games")).all()
    except Exception:
        return []  # no database yet: nothing was made
    finally:
        engine.dispose()
    return [(row[0], row[1]) for row in rows]


def _subjects(tmp_path: Path) -> list[str]:
    return sorted(
        str(message_from_bytes(path.read_bytes(), policy=policy.default)["Subject"])
        for path in (tmp_path / "outbox").glob("*-invite.eml")
    )


@pytest.mark.parametrize(
    "given", [["--title", "Friday Club"], ["--title=Friday Club"], ["--title", " Friday  Club "]]
)
def test_the_title_names_the_game_and_heads_its_mail(
    env: Path, capsys: pytest.CaptureFixture[str], given: list[str]
) -> None:
    assert cli.main(["new-game", "countdown", *given, "--pile", "21", *PLAYERS]) == 0
    assert "invitations to a@example.org, b@example.org" in capsys.readouterr().out
    ((game_id, title),) = _titles(env)
    assert title == "Friday Club"
    assert _subjects(env) == [f"[pbem] Friday Club ({game_id}): you are invited to a game"] * 2


def test_without_a_title_the_game_has_no_name(env: Path) -> None:
    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    ((game_id, title),) = _titles(env)
    assert title is None
    assert _subjects(env) == [f"[pbem] Countdown ({game_id}): you are invited to a game"] * 2


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--title", ""], "--title: A game's name needs at least one visible character"),
        (
            ["--title", "x" * 61],
            "--title: A game's name has at most 60 characters; this one has 61",
        ),
        (["--title", "two\nlines"], "--title: A game's name is one line"),
        (["--title", "see http://spam.example"], "holds an address or a link"),
    ],
)
def test_a_bad_title_is_refused_and_nothing_is_made(
    env: Path, capsys: pytest.CaptureFixture[str], given: list[str], said: str
) -> None:
    assert cli.main(["new-game", "countdown", *given, *PLAYERS]) == 2
    assert said in capsys.readouterr().err
    assert _titles(env) == []
    assert not list((env / "outbox").glob("*.eml"))


def test_a_title_without_a_value_is_refused(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["new-game", "countdown", *PLAYERS, "--title"])
    assert stopped.value.code == 2
    assert "option --title needs a value" in capsys.readouterr().err


def test_the_title_is_the_services_not_the_games() -> None:
    options, players, service = cli._options_and_emails(
        ["--pile", "5", "--title", "Friday Club", *PLAYERS]
    )
    assert options == {"pile": "5"} and players == PLAYERS
    assert service == {"title": "Friday Club"}
