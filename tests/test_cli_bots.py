"""`pbem new-game` with bots in the players list and the timeout policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import cli
from tests.support.cli_db import rows as _rows


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


def test_new_game_seats_bots_from_the_players_list(
    env: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["new-game", "countdown", "me@example.org", "bot:mcts"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "invitations to me@example.org; against bot:mcts" in out
    players = _rows(env, "select email, bot, name from players order by id")
    assert players == [("me@example.org", None, None), (None, "mcts", "pbem MCTS")]
    accepted = _rows(
        env,
        "select p.bot, s.accepted_at is not null from seats s join players p on p.id = s.player_id",
    )
    assert sorted(accepted, key=str) == sorted([(None, 0), ("mcts", 1)], key=str)
    # Only the person is invited.
    assert len(list((env / "outbox").glob("*-invite.eml"))) == 1


def test_new_game_takes_a_timeout_policy_and_refuses_others(
    env: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(
        [
            "new-game",
            "countdown",
            "--on-timeout",
            "autopilot",
            "a@example.org",
            "b@example.org",
            "bot:greedy",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert _rows(env, "select timeout_policy from games") == [("autopilot",)]
    assert cli.main(["new-game", "countdown", "--on-timeout=nap", "a@x.org", "b@x.org"]) == 2
    assert "--on-timeout takes drop or autopilot, not 'nap'" in capsys.readouterr().err
    assert cli.main(["new-game", "countdown", "bot:mcts", "a@example.org"]) == 2
    assert "must be a person" in capsys.readouterr().err
    assert cli.main(["new-game", "countdown", "a@example.org", "bot:hal9000"]) == 2
    assert "is not one of pbem's bots" in capsys.readouterr().err
