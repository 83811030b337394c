"""The command line of correspondence clocks: `pbem new-game --clock … --weekends-free` and
`pbem clock [--now ISO-8601]` and `pbem digest [--now ISO-8601]`."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbem import cli, games
from tests.support.cli_db import rows as _rows


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


def _clocks(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(str(clock)) for (clock,) in _rows(tmp_path, "select clock from games")]


PLAYERS = ["a@example.org", "b@example.org"]


# --- new-game ------------------------------------------------------------------------------------


def test_new_game_without_a_clock_gets_the_default(env: Path) -> None:
    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    assert _clocks(env) == [{"kind": "days", "days": 3, "weekends_free": False}]


def test_new_game_with_a_clock_of_days(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new-game", "countdown", "--clock", "days:3", *PLAYERS]) == 0
    assert "invitations to a@example.org, b@example.org" in capsys.readouterr().out
    assert _clocks(env) == [{"kind": "days", "days": 3, "weekends_free": False}]


def test_new_game_with_a_fischer_clock_after_an_equals_sign(env: Path) -> None:
    assert cli.main(["new-game", "countdown", "--clock=fischer:7+1/14", *PLAYERS]) == 0
    assert _clocks(env) == [
        {"kind": "fischer", "initial": 7, "increment": 1, "max": 14, "weekends_free": False}
    ]


def test_new_game_with_no_clock(env: Path) -> None:
    assert cli.main(["new-game", "countdown", "--clock", "none", *PLAYERS]) == 0
    assert _clocks(env) == [{"kind": "none", "weekends_free": False}]


def test_weekends_free_is_a_flag(env: Path) -> None:
    flag = ["--clock", "days:1", "--weekends-free"]
    assert cli.main(["new-game", "countdown", *flag, *PLAYERS]) == 0
    # Anywhere among the options, and with the default clock.
    assert cli.main(["new-game", "countdown", "--weekends-free", "--pile", "5", *PLAYERS]) == 0
    assert _clocks(env) == [
        {"kind": "days", "days": 1, "weekends_free": True},
        {"kind": "days", "days": 3, "weekends_free": True},
    ]
    assert _rows(env, "select options from games")[1] == ('{"pile": 5, "actions": 1}',)


def test_weekends_free_takes_no_value(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["new-game", "countdown", "--weekends-free=yes", *PLAYERS])
    assert stopped.value.code == 2
    assert "--weekends-free is a flag; it takes no value" in capsys.readouterr().err
    assert not (env / "cli.db").exists()  # refused before anything was done


def test_weekends_free_without_a_clock_is_refused(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["new-game", "countdown", "--clock", "none", "--weekends-free", *PLAYERS])
    assert code == 2
    assert "--weekends-free needs a clock" in capsys.readouterr().err
    assert _clocks(env) == []


@pytest.mark.parametrize("clock", ["days:x", "hourly", "days:", "fischer:7", "days:-1", "days:61"])
def test_a_bad_clock_is_refused_with_the_accepted_forms(
    env: Path, capsys: pytest.CaptureFixture[str], clock: str
) -> None:
    assert cli.main(["new-game", "countdown", "--clock", clock, *PLAYERS]) == 2
    err = capsys.readouterr().err
    assert "pbem new-game: --clock: " in err
    assert "Accepted clocks: none (no time limit); days:N" in err
    assert "fischer:INITIAL+INCREMENT[/MAX]" in err
    assert _clocks(env) == []


def test_a_clock_too_short_is_refused(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new-game", "countdown", "--clock", "days:0.01", *PLAYERS]) == 2
    assert "is too short: each move must have at least 1 hour" in capsys.readouterr().err
    assert _clocks(env) == []


def test_a_clock_without_a_value_is_refused(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["new-game", "countdown", *PLAYERS, "--clock"])
    assert stopped.value.code == 2
    assert "option --clock needs a value" in capsys.readouterr().err


def test_the_games_own_options_are_still_parsed(env: Path) -> None:
    code = cli.main(
        ["new-game", "gorami", "--board", "16", "--clock", "days:2", "--weekends-free", *PLAYERS]
    )
    assert code == 0
    assert _rows(env, "select engine, options from games") == [("gorami", '{"board": 16}')]
    assert _clocks(env) == [{"kind": "days", "days": 2, "weekends_free": True}]


def test_the_service_options_are_parsed_apart_from_the_games() -> None:
    options, emails, service = cli._options_and_emails(
        ["--board", "16", "--clock=days:2", "--weekends-free", "a@x.org", "b@x.org"]
    )
    assert options == {"board": "16"}
    assert emails == ["a@x.org", "b@x.org"]
    assert service == {"clock": "days:2", "weekends_free": ""}


def test_no_engine_declares_an_option_of_the_service() -> None:
    assert set(cli.SERVICE_FLAGS) <= set(cli.SERVICE_OPTIONS)
    for name in games.names():
        declared = {option.replace("-", "_") for option in games.get(name).options}
        assert not declared & set(cli.SERVICE_OPTIONS), name


# --- pbem clock ----------------------------------------------------------------------------------


def test_clock_runs_once_as_of_the_instant_given(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["clock", "--now", "2026-12-03T18:00:00Z"]) == 0
    out = capsys.readouterr().out
    assert out == (
        "clock: 0 timeouts, 0 reminders, 0 vacations ended, 0 invitations expired, "
        "0 games cancelled\n"
    )
    # An instant given is no run of the service's own: downtime is measured from the last one.
    assert _rows(env, "select last_run_at from clock_runs") == []


def test_clock_acts_on_what_is_due(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    later = datetime.now(UTC) + timedelta(days=8)
    assert cli.main(["clock", "--now", later.isoformat()]) == 0
    out = capsys.readouterr().out
    # The other player's invitation lapses; the organiser's own seat never does.
    assert "1 invitation expired" in out
    assert len(list((env / "outbox").glob("*-expired.eml"))) == 1


@pytest.mark.parametrize(
    "given",
    ["2026-12-03T19:00:00+01:00", "2026-12-03T18:00:00Z", "2026-12-03T18:00:00", " 2026-12-03T18 "],
)
def test_clock_takes_instants_in_any_zone_or_none(env: Path, given: str) -> None:
    assert cli._instant(given) == datetime(2026, 12, 3, 18)  # naive UTC; no zone means UTC
    assert cli.main(["clock", "--now", given]) == 0


def _running_game(env: Path) -> datetime:
    """A game of two started by `pbem new-game` and accepted by both; its first deadline."""
    from sqlalchemy import select

    from pbem.app import create_app
    from pbem.domain import starting
    from pbem.extensions import db
    from pbem.models import Seat

    assert cli.main(["new-game", "countdown", "--clock", "days:3", *PLAYERS]) == 0
    app = create_app()
    with app.app_context():
        for seat in db.session.scalars(select(Seat).where(Seat.accepted_at.is_(None))).all():
            starting.accept_invitation(app.config["PBEM"], seat)
        db.session.remove()
        db.engine.dispose()
    ((deadline,),) = _rows(env, "select deadline from games where status = 'running'")
    return datetime.fromisoformat(str(deadline))


def test_clock_now_acts_at_the_instant_and_credits_no_downtime(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deadline = _running_game(env)
    assert cli.main(["clock"]) == 0  # the service's own run: the last run is now
    before = _rows(env, "select last_run_at from clock_runs")
    capsys.readouterr()
    # Days ahead of the last run: the reminder due then is sent, not pushed back as downtime...
    assert cli.main(["clock", "--now", (deadline - timedelta(hours=1)).isoformat()]) == 0
    out = capsys.readouterr().out
    assert "1 reminder," in out and "downtime" not in out
    # ... and the turn times out at its deadline.
    assert cli.main(["clock", "--now", (deadline + timedelta(minutes=1)).isoformat()]) == 0
    out = capsys.readouterr().out
    assert out.startswith("clock: 1 timeout,") and "downtime" not in out
    assert _rows(env, "select status from games") == [("finished",)]
    assert _rows(env, "select last_run_at from clock_runs") == before


def test_a_plain_clock_run_still_credits_downtime(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deadline = _running_game(env)
    assert cli.main(["clock"]) == 0
    engine = create_engine(f"sqlite:///{env / 'cli.db'}")
    with engine.begin() as connection:
        # The last run an hour ago: pbem was down since.
        connection.execute(
            text("update clock_runs set last_run_at = :at"),
            {"at": datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=1)},
        )
    engine.dispose()
    capsys.readouterr()
    assert cli.main(["clock"]) == 0
    assert re.match(r"clock: 1 deadlines extended by 360\ds of downtime", capsys.readouterr().out)
    ((moved,),) = _rows(env, "select deadline from games")
    assert datetime.fromisoformat(str(moved)) - deadline >= timedelta(hours=1)


def test_clock_refuses_a_bad_instant(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["clock", "--now", "tomorrow"])
    assert exited.value.code == 2
    assert "'tomorrow' is not an ISO 8601 instant; write e.g. 2026-12-03T18:00:00Z" in (
        capsys.readouterr().err
    )


# --- pbem digest ---------------------------------------------------------------------------------


def test_digest_runs_once_and_says_what_it_did(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    engine = create_engine(f"sqlite:///{env / 'cli.db'}")
    with engine.begin() as connection:
        connection.execute(text("update players set mail_preference = 'digest'"))
    engine.dispose()
    capsys.readouterr()
    # Invited, not playing yet: their digest hour passes with no game awaiting them.
    assert cli.main(["digest", "--now", "2026-12-03T07:30:00Z"]) == 0
    assert capsys.readouterr().out == "digest: 0 digests sent, 2 players with no game waiting\n"
    assert cli.main(["digest", "--now", "2026-12-03T08:30:00Z"]) == 0  # that day is done
    assert capsys.readouterr().out == "digest: 0 digests sent\n"
    assert not list((env / "outbox").glob("*-digest.eml"))
