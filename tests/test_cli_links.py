"""The links in the mail of every command reach the running server: `pbem serve` records where
its links start (`pbem.served_address`), the other commands read it when BASE_URL is not set
where they run, and BASE_URL in their environment wins."""

from __future__ import annotations

import email
import email.policy
import json
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem import cli, served_address

PLAYERS = ["a@example.org", "b@example.org"]


@pytest.fixture
def env(cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No BASE_URL anywhere, and a `pbem serve` that returns at once."""
    import werkzeug.serving

    monkeypatch.delenv("BASE_URL")
    monkeypatch.setattr(cli, "_every", lambda *args: None)
    monkeypatch.setattr(cli, "_bots", lambda *args: None)
    monkeypatch.setattr(werkzeug.serving, "run_simple", lambda *args, **kwargs: None)
    return cli_env


def _serve(monkeypatch: pytest.MonkeyPatch, *argv: str) -> Any:
    """`pbem serve argv`; the app it would have served. The environment is put back as it was,
    as another command run from another shell would find it."""
    import werkzeug.serving

    served: list[Any] = []
    with monkeypatch.context() as patch:
        patch.setattr(
            werkzeug.serving, "run_simple", lambda host, port, app, **_: served.append(app)
        )
        assert cli.main(["serve", *argv]) == 0
    (app,) = served
    return app


def _mail(folder: Path, kind: str) -> str:
    """The text parts of every saved email of this kind, decoded."""
    texts = []
    for path in sorted((folder / "outbox").glob(f"*-{kind}.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        part = message.get_body(("plain",))
        assert isinstance(part, EmailMessage)
        texts.append(part.get_content())
    assert texts, f"no {kind} mail"
    return "\n".join(texts)


def test_serve_records_its_address_and_the_other_commands_link_to_it(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _serve(monkeypatch, "--port", "8080")
    assert app.config["PBEM"].base_url == "http://127.0.0.1:8080"
    recorded = json.loads((env / "var" / "base_url.json").read_text())
    assert recorded["base_url"] == "http://127.0.0.1:8080"
    assert "links in mail start with http://127.0.0.1:8080" in capsys.readouterr().err

    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    out = capsys.readouterr().out
    assert "see http://127.0.0.1:8080/outbox" in out
    game_id = out.split()[1].rstrip(":")
    assert "http://127.0.0.1:8080/invite/" in _mail(env, "invite")
    assert cli.main(["rotate-links", game_id, "1"]) == 0
    assert "http://127.0.0.1:8080/" in _mail(env, "links")
    later = datetime.now(UTC) + timedelta(days=8)
    assert cli.main(["clock", "--now", later.isoformat()]) == 0
    expired = _mail(env, "expired")
    assert "http://127.0.0.1:8080/" in expired and ":5000" not in expired


def test_base_url_in_the_environment_wins(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(monkeypatch, "--port", "8080")
    monkeypatch.setenv("BASE_URL", "https://pbem.example.org/")
    assert cli.main(["new-game", "countdown", *PLAYERS]) == 0
    invitation = _mail(env, "invite")
    assert "https://pbem.example.org/invite/" in invitation and ":8080" not in invitation


def test_serve_records_the_base_url_it_was_given(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BASE_URL", "https://pbem.example.org")
    _serve(monkeypatch, "--port", "8080")
    assert served_address.recorded(env / "var") == "https://pbem.example.org"


@pytest.mark.parametrize(
    ("base_url", "warned"),
    [
        ("http://127.0.0.1:5000", True),
        ("http://localhost:5000/", True),
        ("http://[::1]:9000", True),
        ("http://localhost", True),  # port 80
        ("http://127.0.0.1:8080", False),
        ("http://localhost:8080/", False),
        ("https://pbem.example.org:5000", False),  # another machine: it may proxy to us
    ],
)
def test_serve_warns_when_base_url_is_this_machine_on_another_port(
    env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    base_url: str,
    warned: bool,
) -> None:
    monkeypatch.setenv("BASE_URL", base_url)
    _serve(monkeypatch, "--port", "8080")
    err = capsys.readouterr().err
    assert ("server listens on port 8080: the links in its mail lead nowhere" in err) == warned
    if warned:
        assert "Set BASE_URL to http://127.0.0.1:8080, or unset it" in err


def test_serve_on_every_interface_warns_that_links_are_local(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _serve(monkeypatch, "--host", "::", "--port", "8080")
    assert app.config["PBEM"].base_url == "http://[::]:8080"
    assert "which other machines cannot open; set BASE_URL" in capsys.readouterr().err


def test_serve_goes_on_when_the_address_cannot_be_recorded(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = env / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("PBEM_VAR_DIR", str(blocker))
    app = _serve(monkeypatch, "--port", "8080")
    assert app.config["PBEM"].base_url == "http://127.0.0.1:8080"
    assert "could not record this server's address" in capsys.readouterr().err
